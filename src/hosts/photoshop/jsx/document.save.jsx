// @bridge-op document.save
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// Saves a layered PSD at p.path (resolved by the bridge) and answers the path Photoshop wrote.
function run(p) {
  var doc = __activate(__doc(p.documentId));
  var options = new PhotoshopSaveOptions();
  options.layers = true;
  doc.saveAs(new File(p.path), options, false, Extension.LOWERCASE);
  return { path: doc.fullName.fsName };
}
