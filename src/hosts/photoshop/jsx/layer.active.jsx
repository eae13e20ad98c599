// @bridge-op layer.active
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// The document and its active layers, top-most first, without changing anything (events re-query with this).
function run(p) {
  var doc = __doc(p.documentId), active = __activeEntries(doc, __entries(doc)), out = [];
  for (var i = 0; i < active.length; i++) out.push(__layerInfo(active[i], false));
  return { documentId: doc.id, layers: out };
}
