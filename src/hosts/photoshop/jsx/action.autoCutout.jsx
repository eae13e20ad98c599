// @bridge-op action.autoCutout
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// "Select Subject" on the layer p.layerId: the selection becomes the subject's outline.
function run(p) {
  var doc = __activate(__doc(p.documentId));
  __selectLayer(__layer(doc, p.layerId).id);
  var desc = new ActionDescriptor();
  desc.putBoolean(stringIDToTypeID("sampleAllLayers"), false);
  executeAction(stringIDToTypeID("autoCutout"), desc, DialogModes.NO);
  return __selectionRect(doc) !== null;
}
