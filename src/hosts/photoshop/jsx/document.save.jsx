// @bridge-op document.save
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
function run(p) {
  var doc = __activate(__doc(p.documentId));
  if (!p.path) {
    try { doc.fullName; } catch (e) { __fail("BAD_REQUEST", "document has no file path; pass savePath", { documentId: doc.id }); }
    doc.save();
    return { path: doc.fullName.fsName };
  }
  var options = new PhotoshopSaveOptions();
  options.layers = true;
  doc.saveAs(new File(p.path), options, false, Extension.LOWERCASE);
  return { path: doc.fullName.fsName };
}
