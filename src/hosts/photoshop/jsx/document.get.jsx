// @bridge-op document.get
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
function run(p) { return __docInfo(__doc(p.documentId)); }
