// @bridge-op font.list
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// The fonts installed for Photoshop (Application.fonts, a TextFonts collection of TextFont: family, style,
// postScriptName), each as text edits name it. Nothing changes.
function run(p) {
  var fonts = app.fonts, out = [];
  for (var i = 0; i < fonts.length; i++) {
    var f = fonts[i];
    out.push({ family: String(f.family), style: String(f.style), postScriptName: String(f.postScriptName) });
  }
  return { fonts: out };
}
