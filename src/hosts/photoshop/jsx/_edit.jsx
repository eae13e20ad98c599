// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// Shared by the edit operations (`edit.*.jsx`): each edit is one history state, made with
// Document.suspendHistory(historyString, javaScriptString), which runs the code string and records everything it
// did as one state named historyString (Photoshop JavaScript Reference, Document.suspendHistory()). Every reference
// an edit names is checked before that state starts, so bad input changes nothing.

var __editBody = null, __editOut, __editError = null;

// Runs the pending body inside suspendHistory; an error is kept, not thrown across Photoshop's eval.
function __editStep() {
  try { __editOut = __editBody(); } catch (e) { __editError = e; }
}

// Runs `body` as one history state named `name` and answers what it answered. A body that fails is undone by
// going back to the state before it (Document.activeHistoryState), then its error is rethrown.
function __inHistory(doc, name, body) {
  var before = doc.activeHistoryState;
  __editBody = body;
  __editOut = undefined;
  __editError = null;
  doc.suspendHistory(name, "__editStep()");
  if (__editError !== null) {
    try { doc.activeHistoryState = before; } catch (e) {}
    throw __editError;
  }
  return __editOut;
}

// A SolidColor from an [r, g, b, a] tuple (SolidColor has no alpha: callers turn it into an opacity).
function __solid(rgba) {
  var c = new SolidColor();
  c.rgb.red = rgba[0];
  c.rgb.green = rgba[1];
  c.rgb.blue = rgba[2];
  return c;
}

// The vocabulary's blend mode names by the constants the DOM takes (BlendMode for layers, ColorBlendMode for
// fills; "pass through" exists only for groups, "clear"/"behind" only for fills).
var __BLEND_CONSTANTS = { "pass through": "PASSTHROUGH", "normal": "NORMAL", "dissolve": "DISSOLVE", "darken": "DARKEN",
  "multiply": "MULTIPLY", "color burn": "COLORBURN", "linear burn": "LINEARBURN", "darker color": "DARKERCOLOR",
  "lighten": "LIGHTEN", "screen": "SCREEN", "color dodge": "COLORDODGE", "linear dodge": "LINEARDODGE",
  "lighter color": "LIGHTERCOLOR", "overlay": "OVERLAY", "soft light": "SOFTLIGHT", "hard light": "HARDLIGHT",
  "vivid light": "VIVIDLIGHT", "linear light": "LINEARLIGHT", "pin light": "PINLIGHT", "hard mix": "HARDMIX",
  "difference": "DIFFERENCE", "exclusion": "EXCLUSION", "subtract": "SUBTRACTION", "divide": "DIVIDE", "hue": "HUE",
  "saturation": "SATURATION", "color": "COLORBLEND", "luminosity": "LUMINOSITY" };

// ColorBlendMode spells two of them its own way (COLOR, SUBTRACT where BlendMode has COLORBLEND, SUBTRACTION).
var __FILL_SPELLINGS = { COLORBLEND: "COLOR", SUBTRACTION: "SUBTRACT" };

function __blendConstant(table, name) {
  var key = __BLEND_CONSTANTS[name], value = key === undefined ? undefined : table[key];
  if (value === undefined && key !== undefined && __FILL_SPELLINGS[key]) value = table[__FILL_SPELLINGS[key]];
  if (value === undefined) __fail("BAD_REQUEST", "Photoshop has no blend mode \"" + name + "\" here", { blendMode: name });
  return value;
}

// A pixel edit of a fully locked layer fails in Photoshop with a dialog-less error: say so before anything runs.
function __unlocked(doc, layer) {
  if (layer.typename === "ArtLayer" && layer.allLocked) {
    __fail("BAD_REQUEST", "Layer " + layer.id + " is locked: unlock it first (layer:update locked: false)", { layerId: layer.id, documentId: doc.id, locked: true });
  }
  return layer;
}

// ---- ActionManager colours and gradients (fill layers, adjustment layers, layer effects) -------------------
function __rgb(rgba) {
  var d = new ActionDescriptor(), k = stringIDToTypeID;
  d.putDouble(k("red"), rgba[0]);
  d.putDouble(k("grain"), rgba[1]);
  d.putDouble(k("blue"), rgba[2]);
  return d;
}

// A gradient (Photoshop's `Grdn` class, gradientClassEvent): colour stops (`Clrs`) and opacity stops (`Trns`) at
// the same locations, 0-4096 along the gradient; smoothness (`Intr`) 0-4096.
function __gradient(f) {
  var k = stringIDToTypeID, g = new ActionDescriptor(), colors = new ActionList(), alphas = new ActionList();
  g.putString(k("name"), "Custom");
  g.putEnumerated(k("gradientForm"), k("gradientForm"), k("customStops"));
  g.putDouble(k("interfaceIconFrameDimmed"), Math.round(f.smoothness * 4096 / 100));
  for (var i = 0; i < f.stops.length; i++) {
    var stop = f.stops[i], at = Math.round(stop.location * 4096 / 100), c = new ActionDescriptor(), t = new ActionDescriptor();
    c.putObject(k("color"), k("RGBColor"), __rgb(stop.color));
    c.putEnumerated(k("type"), k("colorStopType"), k("userStop"));
    c.putInteger(k("location"), at);
    c.putInteger(k("midpoint"), Math.round(stop.midpoint));
    colors.putObject(k("colorStop"), c);
    t.putUnitDouble(k("opacity"), k("percentUnit"), stop.color[3] * 100 / 255);
    t.putInteger(k("location"), at);
    t.putInteger(k("midpoint"), Math.round(stop.midpoint));
    alphas.putObject(k("transferSpec"), t);
  }
  g.putList(k("colors"), colors);
  g.putList(k("transparency"), alphas);
  return g;
}
