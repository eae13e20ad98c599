// @bridge-op layer.place
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// Places a PNG the bridge wrote (already decoded, scaled and checked) as a new pixel layer at p.x, p.y, above the
// layer p.above ({by:"id"|"index"}) or at the top of the document.
function run(p) {
  var doc = __activate(__doc(p.documentId));
  var target = p.above ? __resolve(doc, p.above) : null;
  var src = app.open(new File(p.path));
  try {
    src.activeLayer.duplicate(doc, ElementPlacement.PLACEATBEGINNING);
  } finally {
    src.close(SaveOptions.DONOTSAVECHANGES);
  }
  app.activeDocument = doc;
  var layer = doc.layers[0];
  if (target) layer.move(target.layer, ElementPlacement.PLACEBEFORE);
  layer.name = p.name;
  var b = layer.bounds;
  layer.translate(p.x - __px(b[0]), p.y - __px(b[1]));
  doc.activeLayer = layer;
  var entries = __entries(doc);
  for (var i = 0; i < entries.length; i++) if (entries[i].layer.id === layer.id) return __layerInfo(entries[i], false);
  __fail("LAYER_NOT_FOUND", "The placed layer disappeared");
}
