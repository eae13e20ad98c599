// @bridge-op selection.shape
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// Replaces the selection with an ellipse inside p.shape.rect or a polygon through p.shape.points; Photoshop clips
// it to the canvas. Returns the selection's bounding box, or null when nothing is left.
function run(p) {
  var doc = __activate(__doc(p.documentId)), s = p.shape, i;
  if (s.kind === "ellipse") {
    var r = s.rect, desc = new ActionDescriptor(), ref = new ActionReference(), box = new ActionDescriptor();
    var px = charIDToTypeID("#Pxl");
    ref.putProperty(charIDToTypeID("Chnl"), charIDToTypeID("fsel"));
    desc.putReference(charIDToTypeID("null"), ref);
    box.putUnitDouble(charIDToTypeID("Top "), px, r.y);
    box.putUnitDouble(charIDToTypeID("Left"), px, r.x);
    box.putUnitDouble(charIDToTypeID("Btom"), px, r.y + r.height);
    box.putUnitDouble(charIDToTypeID("Rght"), px, r.x + r.width);
    desc.putObject(charIDToTypeID("T   "), charIDToTypeID("Elps"), box);
    desc.putBoolean(charIDToTypeID("AntA"), true);
    executeAction(charIDToTypeID("setd"), desc, DialogModes.NO);
  } else {
    var points = [];
    for (i = 0; i < s.points.length; i++) points.push([s.points[i].x, s.points[i].y]);
    doc.selection.select(points);
  }
  return __selectionRect(doc);
}
