// @bridge-op document.close
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
function run(p) {
  var doc = __doc(p.documentId), id = doc.id;
  doc.close(SaveOptions.DONOTSAVECHANGES);
  return { documentId: id };
}
