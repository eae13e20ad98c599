// @bridge-op document.list
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// Reads every document without switching to it (no currentDocumentChanged for a read).
function run() {
  var out = [];
  for (var i = 0; i < app.documents.length; i++) out.push(__docInfo(app.documents[i]));
  return out;
}
