// @bridge-op selection.set
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// Replaces the selection with p.shape: {kind:"rect", rect} (already clipped to the canvas by the bridge),
// {kind:"ellipse", rect} inscribed in rect, or {kind:"polygon", points}; Photoshop clips ellipses and polygons to
// the canvas. null (or an empty rect) clears it. Answers the selection's bounding box, or null.
function run(p) {
  var doc = __activate(__doc(p.documentId)), s = p.shape, i;
  if (!s || (s.kind === "rect" && (s.rect.width <= 0 || s.rect.height <= 0))) { doc.selection.deselect(); return null; }
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
  } else if (s.kind === "rect") {
    var q = s.rect;
    doc.selection.select([[q.x, q.y], [q.x + q.width, q.y], [q.x + q.width, q.y + q.height], [q.x, q.y + q.height]]);
  } else {
    var points = [];
    for (i = 0; i < s.points.length; i++) points.push([s.points[i].x, s.points[i].y]);
    doc.selection.select(points);
  }
  return __selectionRect(doc);
}
