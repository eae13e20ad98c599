// @bridge-op document.close
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// Closes without a save prompt (nobody could answer it): unsaved changes are discarded.
function run(p) {
  __doc(p.documentId).close(SaveOptions.DONOTSAVECHANGES);
  return null;
}
