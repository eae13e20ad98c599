// @bridge-op document.layers
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
function run(p) {
  var entries = __entries(__doc(p.documentId)), out = [];
  for (var i = 0; i < entries.length; i++) if (entries[i].depth === 0) out.push(__layerInfo(entries[i], true));
  return out;
}
