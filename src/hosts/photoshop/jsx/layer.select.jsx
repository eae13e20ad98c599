// @bridge-op layer.select
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
function run(p) {
  var doc = __activate(__doc(p.documentId)), entries = __entries(doc), i, j, found;
  for (i = 0; i < p.ids.length; i++) {
    found = false;
    for (j = 0; j < entries.length; j++) if (entries[j].layer.id === p.ids[i]) found = true;
    if (!found) __fail("LAYER_NOT_FOUND", "No layer with id " + p.ids[i], { layerId: p.ids[i], documentId: doc.id });
  }
  for (i = 0; i < p.ids.length; i++) {
    var desc = new ActionDescriptor(), ref = new ActionReference();
    ref.putIdentifier(charIDToTypeID("Lyr "), p.ids[i]);
    desc.putReference(charIDToTypeID("null"), ref);
    if (i > 0) desc.putEnumerated(stringIDToTypeID("selectionModifier"), stringIDToTypeID("selectionModifierType"), stringIDToTypeID("addToSelection"));
    desc.putBoolean(charIDToTypeID("MkVs"), false);
    executeAction(charIDToTypeID("slct"), desc, DialogModes.NO);
  }
  var active = __activeEntries(doc, __entries(doc)), out = [];
  for (i = 0; i < active.length; i++) out.push(__layerInfo(active[i], false));
  return out;
}
