// @bridge-op layer.placed
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// A smart object's placed-layer record, read through the ActionManager (the layer's `smartObjectMore`, the record a
// PSD keeps as its placed layer data): the content's size in its own pixels (`size`), its resolution, the corners
// of its frame in the document (`transform`: x, y of top-left, top-right, bottom-right, bottom-left), the corners
// of a perspective (`nonAffineTransform`, the same when there is none) and its warp's style (`warpNone`: none).
function run(p) {
  var doc = __doc(p.documentId), k = stringIDToTypeID, layer = __domLayer(doc, p.layerId);
  if (layer.typename !== "ArtLayer" || String(layer.kind) !== "LayerKind.SMARTOBJECT") {
    __fail("BAD_REQUEST", "Layer " + p.layerId + " is not a smart object", { layerId: p.layerId });
  }
  var more = __amLayer("id", p.layerId, doc.id, "smartObjectMore").getObjectValue(k("smartObjectMore"));
  var size = more.getObjectValue(k("size")), corners = function (key) {
    if (!more.hasKey(k(key))) return null;
    var list = more.getList(k(key)), out = [];
    for (var i = 0; i < list.count; i++) out.push(list.getDouble(i));
    return out;
  };
  var warp = "warpNone";
  if (more.hasKey(k("warp"))) warp = typeIDToStringID(more.getObjectValue(k("warp")).getEnumerationValue(k("warpStyle")));
  return { width: size.getDouble(k("width")), height: size.getDouble(k("height")),
    resolution: more.hasKey(k("resolution")) ? more.getUnitDoubleValue(k("resolution")) : null,
    transform: corners("transform"), nonAffineTransform: corners("nonAffineTransform"), warp: warp };
}
