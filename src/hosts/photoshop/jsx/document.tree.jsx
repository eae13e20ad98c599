// @bridge-op document.tree
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// A document and its layer tree, top-most first, groups with children: one round trip for what the bridge resolves
// layer references from.
function run(p) {
  var doc = __doc(p.documentId), entries = __entries(doc), layers = [];
  for (var i = 0; i < entries.length; i++) if (entries[i].depth === 0) layers.push(__layerInfo(entries[i], true));
  return { document: __docInfo(doc), layers: layers };
}
