// @bridge-op document.create
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// p.background: "transparent" or "#rrggbb" (Photoshop's new-document fill is white or transparent; other colours
// are filled in afterwards).
function run(p) {
  var transparent = p.background === "transparent";
  var fill = transparent ? DocumentFill.TRANSPARENT : DocumentFill.WHITE;
  var doc = app.documents.add(UnitValue(p.width, "px"), UnitValue(p.height, "px"), 72, p.name, NewDocumentMode.RGB, fill);
  if (!transparent && p.background.toLowerCase() !== "#ffffff") {
    var c = new SolidColor();
    c.rgb.hexValue = p.background.replace("#", "");
    doc.selection.selectAll();
    doc.selection.fill(c);
    doc.selection.deselect();
  }
  return __docInfo(doc);
}
