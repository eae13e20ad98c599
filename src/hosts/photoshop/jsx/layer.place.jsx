// @bridge-op layer.place
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// Places a PNG the bridge wrote (already decoded and scaled) as a new pixel layer named p.name whose image's
// top-left lands at p.x, p.y, directly above the layer p.aboveLayerId (in its group) or at the top of the document
// when it is null; the new layer becomes the active one. Answers its id.
function run(p) {
  var doc = __activate(__doc(p.documentId));
  var target = p.aboveLayerId === null ? null : __domLayer(doc, p.aboveLayerId);
  var src = app.open(new File(p.path)), from;
  try {
    // A layer's bounds skip transparent margins: remember where its pixels start inside the image.
    from = src.activeLayer.bounds;
    src.activeLayer.duplicate(doc, ElementPlacement.PLACEATBEGINNING);
  } finally {
    src.close(SaveOptions.DONOTSAVECHANGES);
  }
  app.activeDocument = doc;
  var layer = doc.layers[0];
  if (target) layer.move(target, ElementPlacement.PLACEBEFORE);
  layer.name = p.name;
  var b = layer.bounds;
  layer.translate(p.x + __px(from[0]) - __px(b[0]), p.y + __px(from[1]) - __px(b[1]));
  doc.activeLayer = layer;
  return layer.id;
}
