// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// A layer's effects (its layer style) as `layer:setEffects` takes them, read from the layer descriptor's
// `layerEffects` object, and the names both directions share (edit.effects.jsx writes the same keys). Keys and units
// as ScriptListener records Photoshop's Layer Style dialog: one object per effect under its class (dropShadow,
// innerShadow, outerGlow, innerGlow, bevelEmboss, chromeFX for satin, solidFill for the colour overlay,
// gradientFill, frameFX for the stroke), the kinds Photoshop stacks also as lists (dropShadowMulti…); spreads and
// chokes are percentages in a pixelsUnit field (`chokeMatte`). Only the effects that are on are read; pattern
// overlays and pattern strokes have no typed form and are left out.

// Each effect of the vocabulary: its class, and the list key of a kind Photoshop stacks.
var __FX_KINDS = [["dropShadow", "dropShadow", "dropShadowMulti"], ["innerShadow", "innerShadow", "innerShadowMulti"], ["outerGlow", "outerGlow", null],
  ["innerGlow", "innerGlow", null], ["bevel", "bevelEmboss", null], ["satin", "chromeFX", null], ["colorOverlay", "solidFill", "solidFillMulti"],
  ["gradientOverlay", "gradientFill", "gradientFillMulti"], ["stroke", "frameFX", "frameFXMulti"]];

// The vocabulary's blend modes by the ActionManager's `blendMode` values (reads name them back with __blendName).
var __FX_BLEND_IDS = { "normal": "normal", "dissolve": "dissolve", "darken": "darken", "multiply": "multiply", "color burn": "colorBurn",
  "linear burn": "linearBurn", "darker color": "darkerColor", "lighten": "lighten", "screen": "screen", "color dodge": "colorDodge",
  "linear dodge": "linearDodge", "lighter color": "lighterColor", "overlay": "overlay", "soft light": "softLight", "hard light": "hardLight",
  "vivid light": "vividLight", "linear light": "linearLight", "pin light": "pinLight", "hard mix": "hardMix", "difference": "difference",
  "exclusion": "exclusion", "subtract": "blendSubtraction", "divide": "blendDivide", "hue": "hue", "saturation": "saturation",
  "color": "color", "luminosity": "luminosity" };
var __FX_GLOW_TECHNIQUES = { softer: "softMatte", precise: "preciseMatte" };
var __FX_GLOW_SOURCES = { edge: "edgeGlow", center: "centerGlow" };
var __FX_BEVEL_TECHNIQUES = { smooth: "softMatte", chiselHard: "preciseMatte", chiselSoft: "slopeLimitMatte" };
// Up is the dialog's "Up" (stamped in), down stamped out.
var __FX_BEVEL_DIRECTIONS = { up: "in", down: "out" };
var __FX_STROKE_POSITIONS = { outside: "outsetFrame", inside: "insetFrame", center: "centeredFrame" };

// The vocabulary's name of an ActionManager value in one of the tables above (the value itself when it is not there).
function __fxName(table, value) {
  for (var name in table) if (table.hasOwnProperty(name) && table[name] === value) return name;
  return value;
}

function __fxRound(v) { return Math.round(v * 1000) / 1000; }

// A key of an effect, or `fallback` where the descriptor leaves it out (the Layer Style dialog's default).
function __fxGet(d, key, type, fallback) {
  var k = stringIDToTypeID, id = k(key);
  if (!d.hasKey(id)) return fallback;
  if (type === "unit") return __fxRound(d.getUnitDoubleValue(id));
  if (type === "bool") return d.getBoolean(id);
  if (type === "color") return __amHex(d.getObjectValue(id));
  if (type === "blend") return __blendName(typeIDToStringID(d.getEnumerationValue(id)).toLowerCase());
  return typeIDToStringID(d.getEnumerationValue(id));
}

// A contour's points, or nothing for a linear one (or one named without its curve).
function __fxContourOf(d, key) {
  var k = stringIDToTypeID;
  if (!d.hasKey(k(key))) return undefined;
  var shape = d.getObjectValue(k(key));
  if (!shape.hasKey(k("curve"))) return undefined;
  var curve = shape.getList(k("curve")), points = [], linear = true;
  for (var i = 0; i < curve.count; i++) {
    var p = curve.getObjectValue(i), x = __fxRound(p.getDouble(k("horizontal"))), y = __fxRound(p.getDouble(k("vertical")));
    if (Math.abs(x - y) >= 0.5) linear = false;
    points.push({ x: x, y: y });
  }
  return points.length < 2 || linear ? undefined : points;
}

function __fxWithContour(out, d, key) {
  var contour = __fxContourOf(d, key);
  if (contour !== undefined) out.contour = contour;
  return out;
}

// The effects of a kind that are on: the list when the descriptor has one, else the one object.
function __fxOn(fx, key, multi) {
  var k = stringIDToTypeID, all = [], out = [];
  if (multi !== null && fx.hasKey(k(multi))) {
    var list = fx.getList(k(multi));
    for (var i = 0; i < list.count; i++) all.push(list.getObjectValue(i));
  } else if (fx.hasKey(k(key))) {
    all.push(fx.getObjectValue(k(key)));
  }
  for (var j = 0; j < all.length; j++) if (__fxGet(all[j], "enabled", "bool", true) && __fxGet(all[j], "present", "bool", true)) out.push(all[j]);
  return out;
}

// A gradient overlay's or gradient stroke's gradient as fill layers' gradients read, or undefined for a noise
// gradient, which has no colour stops and no typed form.
function __fxGradientOf(d) {
  var k = stringIDToTypeID, g = d.getObjectValue(k("gradient"));
  if (!g.hasKey(k("colors"))) return undefined;
  var stops = __amGradientStops(g), plain = [];
  for (var i = 0; i < stops.length; i++) {
    var stop = { location: stops[i].location, color: stops[i].color };
    if (stops[i].midpoint !== 50) stop.midpoint = stops[i].midpoint;
    plain.push(stop);
  }
  var out = { style: __fxGet(d, "type", "enum", "linear"), stops: plain, angle: __fxGet(d, "angle", "unit", 90), scale: __fxGet(d, "scale", "unit", 100),
    reverse: __fxGet(d, "reverse", "bool", false), align: __fxGet(d, "align", "bool", true) };
  var smoothness = g.hasKey(k("interfaceIconFrameDimmed")) ? Math.round(g.getDouble(k("interfaceIconFrameDimmed")) * 1000 / 4096) / 10 : 100;
  if (smoothness !== 100) out.smoothness = smoothness;
  if (d.hasKey(k("offset"))) {
    var o = d.getObjectValue(k("offset")), x = __fxRound(o.getUnitDoubleValue(k("horizontal"))), y = __fxRound(o.getUnitDoubleValue(k("vertical")));
    if (x !== 0 || y !== 0) out.offset = { x: x, y: y };
  }
  if (__fxGet(d, "dither", "bool", false)) out.dither = true;
  var interpolation = __amInterpolation(d);
  if (interpolation !== "classic") out.interpolation = interpolation;
  return out;
}

// One effect of a kind as the vocabulary names its settings; `globalAngle()` is the document's global light.
function __fxRead(name, d, globalAngle) {
  var blend = function (mode) { return { blendMode: __fxGet(d, "mode", "blend", mode), opacity: __fxGet(d, "opacity", "unit", 100) }; };
  var light = function (out) {
    out.useGlobalLight = __fxGet(d, "useGlobalAngle", "bool", true);
    out.angle = out.useGlobalLight ? globalAngle() : __fxGet(d, "localLightingAngle", "unit", 120);
    return out;
  };
  var out;
  if (name === "dropShadow" || name === "innerShadow") {
    out = blend("multiply");
    out.color = __fxGet(d, "color", "color", "#000000");
    light(out);
    out.distance = __fxGet(d, "distance", "unit", 5);
    out.size = __fxGet(d, "blur", "unit", 5);
    out.noise = __fxGet(d, "noise", "unit", 0);
    out.antiAlias = __fxGet(d, "antiAlias", "bool", false);
    if (name === "dropShadow") {
      out.spread = __fxGet(d, "chokeMatte", "unit", 0);
      out.layerKnocksOut = __fxGet(d, "layerConceals", "bool", true);
    } else {
      out.choke = __fxGet(d, "chokeMatte", "unit", 0);
    }
    return __fxWithContour(out, d, "transferSpec");
  }
  if (name === "outerGlow" || name === "innerGlow") {
    out = blend("screen");
    out.color = __fxGet(d, "color", "color", "#ffffbe");
    out.noise = __fxGet(d, "noise", "unit", 0);
    out.technique = __fxName(__FX_GLOW_TECHNIQUES, __fxGet(d, "glowTechnique", "enum", "softMatte"));
    out.size = __fxGet(d, "blur", "unit", 5);
    out.antiAlias = __fxGet(d, "antiAlias", "bool", false);
    out.range = __fxGet(d, "inputRange", "unit", 50);
    out.jitter = __fxGet(d, "shadingNoise", "unit", 0);
    if (name === "outerGlow") {
      out.spread = __fxGet(d, "chokeMatte", "unit", 0);
    } else {
      out.source = __fxName(__FX_GLOW_SOURCES, __fxGet(d, "innerGlowSource", "enum", "edgeGlow"));
      out.choke = __fxGet(d, "chokeMatte", "unit", 0);
    }
    return __fxWithContour(out, d, "transferSpec");
  }
  if (name === "bevel") {
    out = { style: __fxGet(d, "bevelStyle", "enum", "innerBevel"), technique: __fxName(__FX_BEVEL_TECHNIQUES, __fxGet(d, "bevelTechnique", "enum", "softMatte")),
      depth: __fxGet(d, "strengthRatio", "unit", 100), direction: __fxName(__FX_BEVEL_DIRECTIONS, __fxGet(d, "bevelDirection", "enum", "in")),
      size: __fxGet(d, "blur", "unit", 5), soften: __fxGet(d, "softness", "unit", 0) };
    light(out);
    out.altitude = __fxGet(d, "localLightingAltitude", "unit", 30);
    out.antiAlias = __fxGet(d, "antialiasGloss", "bool", false);
    out.highlight = { color: __fxGet(d, "highlightColor", "color", "#ffffff"), blendMode: __fxGet(d, "highlightMode", "blend", "screen"), opacity: __fxGet(d, "highlightOpacity", "unit", 75) };
    out.shadow = { color: __fxGet(d, "shadowColor", "color", "#000000"), blendMode: __fxGet(d, "shadowMode", "blend", "multiply"), opacity: __fxGet(d, "shadowOpacity", "unit", 75) };
    return __fxWithContour(out, d, "transferSpec");
  }
  if (name === "satin") {
    out = blend("multiply");
    out.color = __fxGet(d, "color", "color", "#000000");
    out.angle = __fxGet(d, "localLightingAngle", "unit", 19);
    out.distance = __fxGet(d, "distance", "unit", 11);
    out.size = __fxGet(d, "blur", "unit", 14);
    out.antiAlias = __fxGet(d, "antiAlias", "bool", false);
    out.invert = __fxGet(d, "invert", "bool", true);
    return __fxWithContour(out, d, "mappingShape");
  }
  if (name === "colorOverlay") {
    out = blend("normal");
    out.color = __fxGet(d, "color", "color", "#000000");
    return out;
  }
  if (name === "gradientOverlay") {
    out = blend("normal");
    var gradient = __fxGradientOf(d);
    if (gradient === undefined) return undefined;
    for (var key in gradient) if (gradient.hasOwnProperty(key)) out[key] = gradient[key];
    return out;
  }
  // A stroke: a colour or a gradient; a pattern stroke has no typed form.
  var paint = __fxGet(d, "paintType", "enum", "solidColor");
  if (paint !== "solidColor" && paint !== "gradientFill") return undefined;
  out = blend("normal");
  out.size = __fxGet(d, "size", "unit", 3);
  out.position = __fxName(__FX_STROKE_POSITIONS, __fxGet(d, "style", "enum", "outsetFrame"));
  if (paint === "solidColor") {
    out.color = __fxGet(d, "color", "color", "#000000");
  } else {
    out.gradient = __fxGradientOf(d);
    if (out.gradient === undefined) return undefined;
  }
  return out;
}

// The document's global light angle, as the layer descriptor's `globalAngle` gives it.
function __fxGlobalAngle(docId, id) {
  var d = __amLayer("id", id, docId, "globalAngle"), k = stringIDToTypeID;
  try { return d.getInteger(k("globalAngle")); } catch (e) { return __fxRound(d.getUnitDoubleValue(k("globalAngle"))); }
}

// The effects of the layer with this id that are on, or undefined: a layer without a style has no `layerEffects`,
// and a style switched off (`masterFXSwitch` false) draws none. One effect of a kind reads as an object, several as
// a list, top-most first. A kind whose descriptor does not read as the keys above say is left out with a note, so
// that a style Photoshop wrote otherwise never fails the layer's read.
function __effectsOf(docId, id) {
  var k = stringIDToTypeID, fx;
  try {
    var got = __amLayer("id", id, docId, "layerEffects");
    if (!got.hasKey(k("layerEffects"))) return undefined;
    fx = got.getObjectValue(k("layerEffects"));
    if (!__fxGet(fx, "masterFXSwitch", "bool", true)) return undefined;
  } catch (e) {
    return undefined;
  }
  var angle = null, globalAngle = function () {
    if (angle === null) angle = __fxGlobalAngle(docId, id);
    return angle;
  };
  var out = {}, any = false;
  for (var i = 0; i < __FX_KINDS.length; i++) {
    var kind = __FX_KINDS[i], read = [];
    try {
      var on = __fxOn(fx, kind[1], kind[2]);
      for (var j = 0; j < on.length; j++) {
        var one = __fxRead(kind[0], on[j], globalAngle);
        if (one !== undefined) read.push(one);
      }
    } catch (e) {
      __note("layer " + id + ": its " + kind[0] + " effects were left out (" + String(e) + ")");
      continue;
    }
    if (read.length === 0) continue;
    out[kind[0]] = read.length === 1 ? read[0] : read;
    any = true;
  }
  return any ? out : undefined;
}
