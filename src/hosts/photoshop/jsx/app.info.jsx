// @bridge-op app.info
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
function run() { return { version: app.version }; }
