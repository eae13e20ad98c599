// @bridge-op action.removeBackground
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// Photoshop's "Remove Background" quick action: masks the layer p.layerId to its subject (it fails, rather than
// answering "nothing found", when it cannot run).
function run(p) {
  var doc = __activate(__doc(p.documentId));
  __selectLayer(__layer(doc, p.layerId).id);
  executeAction(stringIDToTypeID("removeBackground"), undefined, DialogModes.NO);
  return true;
}
