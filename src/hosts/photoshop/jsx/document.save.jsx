// @bridge-op document.save
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// Saves the document, layered, at p.path (resolved by the bridge) and answers the path Photoshop wrote. Always a
// save-as with explicit options: doc.save() would keep the format the file was opened in (a JPEG stays a lossy
// JPEG). PhotoshopSaveOptions write PSD whatever the extension, so a .psb path goes through the ActionManager's
// Large Document Format save.
function run(p) {
  var doc = __activate(__doc(p.documentId)), file = new File(p.path);
  if (/\.psb$/i.test(p.path)) {
    var desc = new ActionDescriptor(), format = new ActionDescriptor();
    format.putBoolean(stringIDToTypeID("maximizeCompatibility"), true);
    desc.putObject(charIDToTypeID("As  "), stringIDToTypeID("largeDocumentFormat"), format);
    desc.putPath(charIDToTypeID("In  "), file);
    desc.putBoolean(charIDToTypeID("LwCs"), true);
    executeAction(charIDToTypeID("save"), desc, DialogModes.NO);
  } else {
    var options = new PhotoshopSaveOptions();
    options.layers = true;
    doc.saveAs(file, options, false, Extension.LOWERCASE);
  }
  return { path: doc.fullName.fsName };
}
