// @bridge-op document.comps
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// The document's layer comps (Document.layerComps, in the Layer Comps panel's order): each one's name, comment and
// what it records (LayerComp.visibility, position, appearance). The DOM gives a comp no id, so its id is its 1-based
// place in the panel. `lastApplied` is null: the DOM does not say which comp was applied last (LayerComp.selected is
// the comp selected in the Layer Comps panel, which does not mean it was applied).
function run(p) {
  var doc = __doc(p.documentId), comps = doc.layerComps, list = [];
  for (var i = 0; i < comps.length; i++) {
    var c = comps[i];
    list.push({ id: i + 1, name: c.name, comment: c.comment ? c.comment : null,
      captures: { visibility: c.visibility === true, position: c.position === true, appearance: c.appearance === true } });
  }
  return { documentId: doc.id, comps: list, lastApplied: null };
}
