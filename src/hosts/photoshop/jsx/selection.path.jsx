// @bridge-op selection.path
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// The selection outline grown by p.expand pixels, as {d, box}: SVG path data in document pixels and its bounding
// box, or null. A temporary work path is made from the selection, read point by point (cubic Béziers), and the
// document is restored to the history state it had before.
function run(p) {
  var doc = __activate(__doc(p.documentId));
  var rect = __selectionRect(doc);
  if (!rect) return null;
  var state = doc.activeHistoryState;
  try {
    if (p.expand > 0) doc.selection.expand(UnitValue(p.expand, "px"));
    doc.selection.makeWorkPath(0.5);
    var path = doc.pathItems[doc.pathItems.length - 1], d = [];
    var n = function (v) { return Math.round(v * 100) / 100; };
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
    return { d: d.join(" "), box: __selectionRect(doc) };
  } finally {
    doc.activeHistoryState = state;
  }
}
