// @bridge-op edit.transform
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// layer:transform as one Edit > Free Transform step of the ActionManager (`transform` on the target layer):
// `freeTransformCenterState: QCSIndependent` with `position` puts the reference point at p.edit.anchor (document
// pixels); `width`/`height` scale it (percent, negative mirrors), `angle` turns it clockwise, `offset` then moves
// it. Photoshop scales (and mirrors) before it rotates; the vocabulary rotates, then flips, and a mirror turns the
// other way round, so one axis mirrored sends the angle negated. Answers {}.
var __RESAMPLE = { nearest: "nearestNeighbor", bilinear: "bilinear", bicubic: "bicubic" };

function run(p) {
  var doc = __activate(__doc(p.documentId)), e = p.edit, k = stringIDToTypeID;
  var layer = __unlocked(doc, __domLayer(doc, e.layerId));
  if (layer.typename === "ArtLayer" && layer.isBackgroundLayer) __fail("BAD_REQUEST", "The Background layer cannot be transformed", { layerId: e.layerId });
  var mirrorX = e.flip === "horizontal" || e.flip === "both", mirrorY = e.flip === "vertical" || e.flip === "both";
  var angle = mirrorX !== mirrorY ? -e.angle : e.angle;
  return __inHistory(doc, p.history, function () {
    __selectLayer(e.layerId);
    var desc = new ActionDescriptor(), ref = new ActionReference(), px = k("pixelsUnit");
    ref.putEnumerated(k("layer"), k("ordinal"), k("targetEnum"));
    desc.putReference(k("null"), ref);
    desc.putEnumerated(k("freeTransformCenterState"), k("quadCenterState"), k("QCSIndependent"));
    var at = new ActionDescriptor();
    at.putUnitDouble(k("horizontal"), px, e.anchor.x);
    at.putUnitDouble(k("vertical"), px, e.anchor.y);
    desc.putObject(k("position"), k("paint"), at);
    var by = new ActionDescriptor();
    by.putUnitDouble(k("horizontal"), px, e.dx);
    by.putUnitDouble(k("vertical"), px, e.dy);
    desc.putObject(k("offset"), k("offset"), by);
    desc.putUnitDouble(k("width"), k("percentUnit"), mirrorX ? -e.scaleX : e.scaleX);
    desc.putUnitDouble(k("height"), k("percentUnit"), mirrorY ? -e.scaleY : e.scaleY);
    desc.putUnitDouble(k("angle"), k("angleUnit"), angle);
    desc.putEnumerated(k("interpolation"), k("interpolationType"), k(__RESAMPLE[e.resample]));
    executeAction(k("transform"), desc, DialogModes.NO);
    return {};
  });
}
