// @bridge-op document.open
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
function run(p) {
  var file = new File(p.path);
  if (!file.exists) __fail("BAD_REQUEST", "No such file: " + p.path, { path: p.path });
  return __docInfo(app.open(file));
}
