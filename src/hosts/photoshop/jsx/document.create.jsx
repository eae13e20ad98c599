// @bridge-op document.create
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
function run(p) {
  var fill = p.background === "transparent" ? DocumentFill.TRANSPARENT : DocumentFill.WHITE;
  var doc = app.documents.add(UnitValue(p.width, "px"), UnitValue(p.height, "px"), 72, p.name, NewDocumentMode.RGB, fill);
  if (p.background && p.background !== "transparent" && p.background !== "white") {
    var c = new SolidColor();
    c.rgb.hexValue = p.background.replace("#", "");
    doc.selection.selectAll();
    doc.selection.fill(c);
    doc.selection.deselect();
  }
  return __docInfo(doc);
}
