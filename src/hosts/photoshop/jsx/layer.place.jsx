// @bridge-op layer.place
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// Places a PNG the bridge wrote (already decoded and scaled) as a new pixel layer named p.name whose image's
// top-left lands at p.x, p.y, directly above the layer p.aboveLayerId (in its group) or at the top of the document
// when it is null; the new layer becomes the active one. Answers its id.
function run(p) {
  var doc = __activate(__doc(p.documentId));
  var target = p.aboveLayerId === null ? null : __domLayer(doc, p.aboveLayerId);
  var layer = __copyImageIn(doc, p.path, target, p.x, p.y);
  layer.name = p.name;
  doc.activeLayer = layer;
  return layer.id;
}
