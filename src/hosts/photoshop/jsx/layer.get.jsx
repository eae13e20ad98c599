// @bridge-op layer.get
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
function run(p) {
  var entry = __resolve(__doc(p.documentId), p.ref);
  return entry ? __layerInfo(entry, p.children === true) : null;
}
