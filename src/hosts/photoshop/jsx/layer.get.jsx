// @bridge-op layer.get
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// One layer by id, without its children.
function run(p) { return __layerInfo(__layer(__doc(p.documentId), p.layerId), false); }
