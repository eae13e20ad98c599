// @bridge-op selection.get
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
function run(p) { return __selectionRect(__doc(p.documentId)); }
