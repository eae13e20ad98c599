// @bridge-op document.list
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
function run() {
  var out = [], active = app.documents.length ? app.activeDocument : null;
  for (var i = 0; i < app.documents.length; i++) out.push(__docInfo(app.documents[i]));
  if (active) app.activeDocument = active;
  return out;
}
