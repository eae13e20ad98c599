// @bridge-op action.removeBackground
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// Photoshop's "Remove Background" quick action: masks the layer to its subject.
function run(p) {
  var doc = __activate(__doc(p.documentId));
  if (p.layerId !== undefined && p.layerId !== null) doc.activeLayer = __resolve(doc, { by: "id", id: p.layerId }).layer;
  executeAction(stringIDToTypeID("removeBackground"), undefined, DialogModes.NO);
  return { success: true };
}
