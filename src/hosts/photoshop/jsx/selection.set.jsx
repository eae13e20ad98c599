// @bridge-op selection.set
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// p.rect is already clipped to the canvas by the bridge; null or empty clears the selection.
function run(p) {
  var doc = __activate(__doc(p.documentId)), r = p.rect;
  if (!r || r.width <= 0 || r.height <= 0) { doc.selection.deselect(); return null; }
  doc.selection.select([[r.x, r.y], [r.x + r.width, r.y], [r.x + r.width, r.y + r.height], [r.x, r.y + r.height]]);
  return __selectionRect(doc);
}
