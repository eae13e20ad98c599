// @bridge-op action.autoCutout
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// "Select Subject" on the given layer (or the active one): the selection becomes the subject's outline.
function run(p) {
  var doc = __activate(__doc(p.documentId));
  if (p.layerId !== undefined && p.layerId !== null) doc.activeLayer = __resolve(doc, { by: "id", id: p.layerId }).layer;
  var desc = new ActionDescriptor();
  desc.putBoolean(stringIDToTypeID("sampleAllLayers"), false);
  executeAction(stringIDToTypeID("autoCutout"), desc, DialogModes.NO);
  return __selectionRect(doc) !== null;
}
