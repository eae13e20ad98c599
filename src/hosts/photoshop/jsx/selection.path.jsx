// @bridge-op selection.path
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// The selection outline grown by p.expand pixels, as {d, box}: SVG path data in document pixels and its bounding
// box, or null. A temporary work path is made from the selection, read point by point (cubic Béziers), and the
// document is restored to the history state it had before. Making the work path drops the selection, so the box
// is read before; the work path is found by its kind (a layer's vector mask or text path is listed too).
function run(p) {
  var doc = __activate(__doc(p.documentId));
  if (!__selectionRect(doc)) return null;
  var state = doc.activeHistoryState;
  try {
    // Modify > Expand takes at most 500 px at a time.
    for (var left = p.expand || 0; left > 0; left -= 500) doc.selection.expand(UnitValue(Math.min(left, 500), "px"));
    var box = __selectionRect(doc);
    doc.selection.makeWorkPath(0.5);
    var path = null, d = [];
    for (var k = 0; k < doc.pathItems.length; k++) if (doc.pathItems[k].kind == PathKind.WORKPATH) path = doc.pathItems[k];
    if (!path) __fail("JSX_FAILED", "Photoshop made no work path from the selection");
    var n = function (v) { return Math.round(v * 100) / 100; };
    // A segment leaves a point by its rightDirection ("out" handle) and reaches the next by its leftDirection ("in"
    // handle), as PathPointInfo documents them (https://theiviaxx.github.io/photoshop-docs/Photoshop/PathPointInfo.html).
    // scripts/photoshop-checklist.mjs checks this on a real ellipse.
    for (var s = 0; s < path.subPathItems.length; s++) {
      var pts = path.subPathItems[s].pathPoints, count = pts.length;
      for (var i = 0; i <= count; i++) {
        var pt = pts[i % count];
        if (i === 0) { d.push("M" + n(pt.anchor[0]) + " " + n(pt.anchor[1])); continue; }
        var prev = pts[i - 1];
        d.push("C" + n(prev.rightDirection[0]) + " " + n(prev.rightDirection[1]) + " " + n(pt.leftDirection[0]) + " " +
          n(pt.leftDirection[1]) + " " + n(pt.anchor[0]) + " " + n(pt.anchor[1]));
      }
      d.push("Z");
    }
    return { d: d.join(" "), box: box };
  } finally {
    doc.activeHistoryState = state;
  }
}
