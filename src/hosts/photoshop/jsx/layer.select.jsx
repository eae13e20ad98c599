// @bridge-op layer.select
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// Makes exactly the layers p.ids the active ones.
function run(p) {
  var doc = __activate(__doc(p.documentId)), entries = __entries(doc), i, j;
  for (i = 0; i < p.ids.length; i++) {
    for (j = 0; j < entries.length && entries[j].id !== p.ids[i]; j++) {}
    if (j === entries.length) __fail("LAYER_NOT_FOUND", "No layer with id " + p.ids[i], { layerId: p.ids[i], documentId: doc.id });
  }
  for (i = 0; i < p.ids.length; i++) {
    var desc = new ActionDescriptor(), ref = new ActionReference();
    ref.putIdentifier(charIDToTypeID("Lyr "), p.ids[i]);
    desc.putReference(charIDToTypeID("null"), ref);
    if (i > 0) desc.putEnumerated(stringIDToTypeID("selectionModifier"), stringIDToTypeID("selectionModifierType"), stringIDToTypeID("addToSelection"));
    desc.putBoolean(charIDToTypeID("MkVs"), false);
    executeAction(charIDToTypeID("slct"), desc, DialogModes.NO);
  }
  return null;
}
