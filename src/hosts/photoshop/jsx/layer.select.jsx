// @bridge-op layer.select
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// Makes exactly the layers p.ids the active ones.
function run(p) {
  var doc = __activate(__doc(p.documentId)), i;
  for (i = 0; i < p.ids.length; i++) __layer(doc, p.ids[i]);
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
