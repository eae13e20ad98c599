// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// A document's layer tree as entries, top-most first: {id, index, depth, children (groups), info (read lazily)}.
// `index` is the generator index: 0-based from the bottom of the stack, where a group takes its own slot above its
// children and a hidden divider slot below them (`Title 5 · Group 4 · A 3 · B 2 · divider 1 · Background 0`).
//
// The tree is read through the ActionManager: walking the DOM (doc.layers, layer.layers, every property one DOM
// call) is slow on big documents. What the ActionManager read assumes (index order, which keys say what) is not
// all documented, so it checks itself against the DOM's top level and falls back to the DOM walk when anything
// disagrees, with a note in the envelope: a wrong assumption costs speed, never a wrong layer address.

// Video and 3D layers hold rendered pixels of their own: pixel layers to a client, not adjustments.
// The DOM cannot tell a fill layer from a shape layer: both are LayerKind.SOLIDFILL / GRADIENTFILL / PATTERNFILL
// (a shape layer is a fill layer drawn through a vector mask), and the ArtLayer reference documents no property
// that says whether a layer has a vector mask. The DOM walk keeps calling them all `shape`; the ActionManager
// read below tells them apart.
var __KINDS = { "LayerKind.TEXT": "text", "LayerKind.SOLIDFILL": "shape", "LayerKind.GRADIENTFILL": "shape",
  "LayerKind.PATTERNFILL": "shape", "LayerKind.SMARTOBJECT": "smartObject", "LayerKind.VIDEO": "pixel", "LayerKind.LAYER3D": "pixel" };

// The same kinds by the ActionManager's `layerKind` code (the SheetKind table of CopyCSSToClipboard.jsx, which
// Adobe ships in Photoshop's Required folder): vector layers (4) are shapes, video and 3D pixel layers. The fill
// codes (9 gradient, 10 pattern, 11 solid colour) are `fill`, or `shape` when the layer has a vector mask (see
// __FILL_CODES): the bridge's kinds name a fill drawn through a path a shape, as the embedded editor does.
var __SHEET_KINDS = { 1: "pixel", 2: "adjustment", 3: "text", 4: "shape", 5: "smartObject", 6: "pixel", 8: "pixel",
  9: "fill", 10: "fill", 11: "fill", 12: "background" };

// The `layerKind` codes of fill layers, whose kind depends on the layer descriptor's `hasVectorMask` boolean: the
// key sits beside layerKind, hasUserMask and vectorMaskDensity in a layer's executeActionGet descriptor (as
// dumped, for one, in the README of JavierAroche/descriptor-info on GitHub), and scripts read it by layer id as
// getBoolean(stringIDToTypeID("hasVectorMask")). It is read only for these codes: one more get per fill layer.
var __FILL_CODES = { 9: true, 10: true, 11: true };

function __kind(layer) {
  if (layer.typename === "LayerSet") return "group";
  if (layer.isBackgroundLayer) return "background";
  var k = String(layer.kind);
  if (__KINDS[k]) return __KINDS[k];
  return k === "LayerKind.NORMAL" ? "pixel" : "adjustment";
}

// A text layer's text and settings through its TextItem (the DOM layer found by id for the ActionManager read): the
// size and leading as points, the position or the paragraph box in pixels, lines broken by "\n".
var __ALIGNMENTS = { "Justification.LEFT": "left", "Justification.CENTER": "center", "Justification.RIGHT": "right" };

function __textOf(layer) {
  var t = layer.textItem, paragraph = String(t.kind) === "TextType.PARAGRAPHTEXT", at = t.position;
  var out = { text: String(t.contents).replace(/\r/g, "\n"), font: t.font, size: t.size.as("pt"), color: "#" + String(t.color.rgb.hexValue).toLowerCase(),
    alignment: __ALIGNMENTS[String(t.justification)] || "justify", tracking: t.tracking, antiAlias: String(t.antiAliasMethod).replace("AntiAlias.", "").toLowerCase(), direction: "ltr" };
  var shift = t.baselineShift.as("pt");
  if (shift !== 0) out.baselineShift = shift;
  if (t.useAutoLeading !== true) out.leading = t.leading.as("pt");
  if (paragraph) out.box = { x: __px(at[0]), y: __px(at[1]), width: __px(t.width), height: __px(t.height) };
  else out.position = { x: __px(at[0]), y: __px(at[1]) };
  return out;
}

function __infoFrom(id, index, name, kind, visible, opacity, blendMode, b, clipped, extras) {
  var info = { id: id, index: index, name: name, kind: kind, visible: visible, opacity: opacity, blendMode: __blendName(blendMode),
    bounds: { left: b[0], top: b[1], right: b[2], bottom: b[3] },
    rect: { x: b[0], y: b[1], width: b[2] - b[0], height: b[3] - b[1] }, clipped: clipped, locked: extras.locked };
  if (extras.fillOpacity !== undefined) info.fillOpacity = extras.fillOpacity;
  if (extras.mask) info.mask = extras.mask;
  if (extras.text) info.text = extras.text;
  if (extras.content) info[extras.content.field] = extras.content.value;
  if (extras.effects) info.effects = extras.effects;
  return info;
}

// Blend modes by the names layer records use: the ActionManager's ids and the DOM's constants, lower-cased, run
// together ("colorBurn", BlendMode.COLORBURN); the rest are already one word.
var __BLEND_NAMES = { passthrough: "pass through", colorburn: "color burn", linearburn: "linear burn", darkercolor: "darker color",
  colordodge: "color dodge", lineardodge: "linear dodge", lightercolor: "lighter color", softlight: "soft light",
  hardlight: "hard light", vividlight: "vivid light", linearlight: "linear light", pinlight: "pin light", hardmix: "hard mix",
  blendsubtraction: "subtract", subtraction: "subtract", blenddivide: "divide", colorblend: "color" };

function __blendName(mode) { return __BLEND_NAMES.hasOwnProperty(mode) ? __BLEND_NAMES[mode] : mode; }

// A number the ActionManager keeps as a unit value, or as an integer 0-255 (as it keeps opacities).
function __amPercentOrPixels(desc, key, scale255) {
  try { return desc.getUnitDoubleValue(key); } catch (e) {}
  return scale255 ? Math.round(desc.getInteger(key) * 100 / 255) : desc.getDouble(key);
}

// A layer's pixel mask ({enabled, linked, density 0-100, feather px}) or undefined, read by id through the
// ActionManager (`hasUserMask`, then userMaskEnabled / userMaskLinked / userMaskDensity / userMaskFeather), in
// both walks: the DOM says nothing of a mask's state.
function __maskOf(docId, id) {
  var k = stringIDToTypeID, get = function (key) { return __amLayer("id", id, docId, key); };
  try { if (get("hasUserMask").getBoolean(k("hasUserMask")) !== true) return undefined; } catch (e) { return undefined; }
  return { enabled: get("userMaskEnabled").getBoolean(k("userMaskEnabled")), linked: get("userMaskLinked").getBoolean(k("userMaskLinked")),
    density: Math.round(__amPercentOrPixels(get("userMaskDensity"), k("userMaskDensity"), true)),
    feather: __amPercentOrPixels(get("userMaskFeather"), k("userMaskFeather"), false) };
}

// ---- Fill and adjustment layers' settings ---------------------------------------------------------------------
// A fill, shape or adjustment layer keeps its settings in the layer descriptor's `adjustment` list: one object whose
// class is the content's (solidColorLayer, gradientLayer, patternLayer, brightnessEvent, levels, curves, colorBalance, invert,
// posterization, thresholdClassEvent, hueSaturation, exposure, vibrance, channelMixer, gradientMapClass,
// blackAndWhite, photoFilter, selectiveColor), with the keys the `make` / `set` that made it passed (edit.layer.jsx
// writes them). They read back as `layer:create` takes them; a class the bridge does not write reads as nothing.
function __hex2(v) { var h = Math.max(0, Math.min(255, Math.round(v))).toString(16); return h.length < 2 ? "0" + h : h; }
function __amHex(c, alpha) {
  var k = stringIDToTypeID, out = "#" + __hex2(c.getDouble(k("red"))) + __hex2(c.getDouble(k("grain"))) + __hex2(c.getDouble(k("blue")));
  return alpha === undefined || alpha >= 255 ? out : out + __hex2(alpha);
}
// Stop locations are 0-4096 along the gradient: percent to a tenth.
function __amLocation(v) { return Math.round(v * 1000 / 4096) / 10; }

// A gradient's stops, each colour stop with the opacity stop at the same place in the list (as edit.layer.jsx writes
// them).
function __amGradientStops(g) {
  var k = stringIDToTypeID, colors = g.getList(k("colors")), alphas = g.getList(k("transparency")), stops = [];
  for (var i = 0; i < colors.count; i++) {
    var c = colors.getObjectValue(i), t = i < alphas.count ? alphas.getObjectValue(i) : null;
    var alpha = t === null ? 255 : Math.round(t.getUnitDoubleValue(k("opacity")) * 255 / 100);
    stops.push({ location: __amLocation(c.getInteger(k("location"))), color: __amHex(c.getObjectValue(k("color")), alpha), midpoint: c.getInteger(k("midpoint")) });
  }
  return stops;
}

// A gradient's interpolation: gradientsInterpolationMethod when it is there, classic (the only one before Photoshop 2022)
// when not.
function __amInterpolation(d) {
  var key = stringIDToTypeID("gradientsInterpolationMethod");
  return d.hasKey(key) ? typeIDToStringID(d.getEnumerationValue(key)) : "classic";
}

function __amGradientFill(d) {
  var k = stringIDToTypeID, g = d.getObjectValue(k("gradient")), stops = __amGradientStops(g);
  var offset = d.getObjectValue(k("offset"));
  return { type: "gradient", style: typeIDToStringID(d.getEnumerationValue(k("type"))), stops: stops,
    smoothness: Math.round(g.getDouble(k("interfaceIconFrameDimmed")) * 1000 / 4096) / 10, interpolation: __amInterpolation(d),
    angle: d.getUnitDoubleValue(k("angle")), scale: d.getUnitDoubleValue(k("scale")), reverse: d.getBoolean(k("reverse")),
    align: d.getBoolean(k("align")), offset: { x: offset.getUnitDoubleValue(k("horizontal")), y: offset.getUnitDoubleValue(k("vertical")) } };
}

var __AM_CHANNEL_NAMES = { composite: "rgb", red: "red", green: "green", blue: "blue" };
var __AM_HUE_RANGES = ["reds", "yellows", "greens", "cyans", "blues", "magentas"];
var __AM_HUE_BOUNDS = [[315, 345, 15, 45], [15, 45, 75, 105], [75, 105, 135, 165], [135, 165, 195, 225], [195, 225, 255, 285], [255, 285, 315, 345]];

function __amContentSettings(cls, d) {
  var k = stringIDToTypeID;
  if (cls === "solidColorLayer") return { field: "fill", value: { type: "solid", color: __amHex(d.getObjectValue(k("color"))) } };
  if (cls === "gradientLayer") return { field: "fill", value: __amGradientFill(d) };
  if (cls === "patternLayer") return { field: "fill", value: { type: "pattern", name: d.getObjectValue(k("pattern")).getString(k("name")) } };
  if (cls === "brightnessEvent") return { field: "adjustment", value: { type: "brightnessContrast", brightness: d.getInteger(k("brightness")), contrast: d.getInteger(k("center")), legacy: d.getBoolean(k("useLegacy")) } };
  if (cls === "levels" || cls === "curves") {
    var out = { type: cls, rgb: null, red: null, green: null, blue: null }, list = d.getList(k("adjustment"));
    for (var i = 0; i < list.count; i++) {
      var one = list.getObjectValue(i), channel = __AM_CHANNEL_NAMES[typeIDToStringID(one.getReference(k("channel")).getEnumeratedValue())];
      if (cls === "levels") {
        var input = one.getList(k("input")), output = one.getList(k("output"));
        out[channel] = { inputBlack: input.getInteger(0), inputWhite: input.getInteger(1), gamma: one.getDouble(k("gamma")), outputBlack: output.getInteger(0), outputWhite: output.getInteger(1) };
      } else {
        var points = one.getList(k("curve")), curve = [];
        for (var j = 0; j < points.count; j++) curve.push({ input: points.getObjectValue(j).getDouble(k("horizontal")), output: points.getObjectValue(j).getDouble(k("vertical")) });
        out[channel] = curve;
      }
    }
    return { field: "adjustment", value: out };
  }
  if (cls === "colorBalance") {
    var shift = function (key) { var l = d.getList(k(key)); return { cyanRed: l.getInteger(0), magentaGreen: l.getInteger(1), yellowBlue: l.getInteger(2) }; };
    return { field: "adjustment", value: { type: "colorBalance", shadows: shift("shadowLevels"), midtones: shift("midtoneLevels"), highlights: shift("highlightLevels"),
      preserveLuminosity: d.getBoolean(k("preserveLuminosity")) } };
  }
  if (cls === "invert") return { field: "adjustment", value: { type: "invert" } };
  if (cls === "posterization") return { field: "adjustment", value: { type: "posterize", levels: d.getInteger(k("levels")) } };
  if (cls === "thresholdClassEvent") return { field: "adjustment", value: { type: "threshold", level: d.getInteger(k("level")) } };
  if (cls === "hueSaturation") {
    // The entry without a localRange is the master; the others are the ranges (their bounds when not the default).
    var changes = d.getList(k("adjustment")), value = { type: "hueSaturation", hue: 0, saturation: 0, lightness: 0 }, ranges = null;
    var hsl = function (c) { return { hue: c.getInteger(k("hue")), saturation: c.getInteger(k("saturation")), lightness: c.getInteger(k("lightness")) }; };
    // Colorize: the master entry is the colour.
    if (d.getBoolean(k("colorize"))) return { field: "adjustment", value: { type: "hueSaturation", colorize: hsl(changes.getObjectValue(0)) } };
    for (var h = 0; h < changes.count; h++) {
      var change = changes.getObjectValue(h), at = 0;
      try { at = change.getInteger(k("localRange")); } catch (e) {}
      var read = hsl(change);
      if (at === 0) {
        value.hue = read.hue; value.saturation = read.saturation; value.lightness = read.lightness;
        continue;
      }
      var bounds = [change.getInteger(k("beginRamp")), change.getInteger(k("beginSustain")), change.getInteger(k("endSustain")), change.getInteger(k("endRamp"))];
      if (bounds.join() !== __AM_HUE_BOUNDS[at - 1].join()) read.bounds = bounds;
      if (ranges === null) ranges = {};
      ranges[__AM_HUE_RANGES[at - 1]] = read;
    }
    if (ranges !== null) value.ranges = ranges;
    return { field: "adjustment", value: value };
  }
  if (cls === "blackAndWhite") {
    var bw = { type: "blackAndWhite", reds: d.getInteger(k("red")), yellows: d.getInteger(k("yellow")), greens: d.getInteger(k("grain")), cyans: d.getInteger(k("cyan")),
      blues: d.getInteger(k("blue")), magentas: d.getInteger(k("magenta")) };
    if (d.getBoolean(k("useTint"))) bw.tint = __amHex(d.getObjectValue(k("tintColor")));
    return { field: "adjustment", value: bw };
  }
  if (cls === "photoFilter") {
    return { field: "adjustment", value: { type: "photoFilter", color: __amHex(d.getObjectValue(k("color"))), density: d.getInteger(k("density")), preserveLuminosity: d.getBoolean(k("preserveLuminosity")) } };
  }
  if (cls === "selectiveColor") {
    var sel = { type: "selectiveColor", mode: typeIDToStringID(d.getEnumerationValue(k("method"))) }, corrections = d.getList(k("colorCorrection"));
    for (var sc = 0; sc < corrections.count; sc++) {
      var corr = corrections.getObjectValue(sc);
      sel[typeIDToStringID(corr.getEnumerationValue(k("colors")))] = { cyan: corr.getUnitDoubleValue(k("cyan")), magenta: corr.getUnitDoubleValue(k("magenta")),
        yellow: corr.getUnitDoubleValue(k("yellowColor")), black: corr.getUnitDoubleValue(k("black")) };
    }
    return { field: "adjustment", value: sel };
  }
  if (cls === "exposure") return { field: "adjustment", value: { type: "exposure", exposure: d.getDouble(k("exposure")), offset: d.getDouble(k("offset")), gamma: d.getDouble(k("gammaCorrection")) } };
  if (cls === "vibrance") return { field: "adjustment", value: { type: "vibrance", vibrance: d.getInteger(k("vibrance")), saturation: d.getInteger(k("saturation")) } };
  if (cls === "channelMixer") {
    var row = function (key) { var m = d.getObjectValue(k(key)); return { red: m.getUnitDoubleValue(k("red")), green: m.getUnitDoubleValue(k("grain")), blue: m.getUnitDoubleValue(k("blue")), constant: m.getUnitDoubleValue(k("constant")) }; };
    if (d.getBoolean(k("monochromatic"))) return { field: "adjustment", value: { type: "channelMixer", monochrome: row("gray") } };
    return { field: "adjustment", value: { type: "channelMixer", red: row("red"), green: row("grain"), blue: row("blue") } };
  }
  if (cls === "gradientMapClass") {
    var map = __amGradientStops(d.getObjectValue(k("gradient"))), plain = [];
    for (var m = 0; m < map.length; m++) plain.push({ location: map[m].location, color: map[m].color });
    return { field: "adjustment", value: { type: "gradientMap", stops: plain, reverse: d.getBoolean(k("reverse")) } };
  }
  return undefined;
}

// {field: "fill" | "adjustment", value} of a fill, shape or adjustment layer by id, or undefined (another kind, or
// a content the bridge does not read).
function __contentOf(docId, id, kind) {
  if (kind !== "fill" && kind !== "shape" && kind !== "adjustment") return undefined;
  try {
    var list = __amLayer("id", id, docId, "adjustment").getList(stringIDToTypeID("adjustment"));
    if (list.count < 1) return undefined;
    return __amContentSettings(typeIDToStringID(list.getObjectType(0)), list.getObjectValue(0));
  } catch (e) {
    return undefined;
  }
}

// ---- The DOM walk -------------------------------------------------------------------------------------------

function __slots(layers) {
  var n = 0;
  for (var i = 0; i < layers.length; i++) n += layers[i].typename === "LayerSet" ? 2 + __slots(layers[i].layers) : 1;
  return n;
}

function __walk(doc, layers, top, depth, out, into) {
  var index = top;
  for (var i = 0; i < layers.length; i++) {
    var layer = layers[i];
    var entry = { id: layer.id, layer: layer, doc: doc, index: index, depth: depth };
    out.push(entry);
    into.push(entry);
    index--;
    if (layer.typename === "LayerSet") {
      entry.children = [];
      index = __walk(doc, layer.layers, index, depth + 1, out, entry.children);
      index--; // the divider
    }
  }
  return index;
}

function __domEntries(doc) { var out = []; __walk(doc, doc.layers, __slots(doc.layers) - 1, 0, out, []); return out; }

// `allLocked` is Lock All; a group has no fill opacity (LayerSet has none).
function __domInfo(entry) {
  var l = entry.layer, b = l.bounds, group = l.typename === "LayerSet";
  var kind = __kind(l);
  var extras = { locked: l.allLocked === true, fillOpacity: group ? undefined : Math.round(l.fillOpacity), mask: __maskOf(entry.doc.id, l.id),
    text: kind === "text" ? __textOf(l) : undefined, content: __contentOf(entry.doc.id, l.id, kind), effects: __effectsOf(entry.doc.id, l.id) };
  return __infoFrom(l.id, entry.index, l.name, kind, l.visible, Math.round(l.opacity),
    String(l.blendMode).replace("BlendMode.", "").toLowerCase(), [__px(b[0]), __px(b[1]), __px(b[2]), __px(b[3])],
    l.grouped === true, extras);
}

// The DOM layer with this id (for the DOM methods that need the object itself, such as move).
function __domLayer(doc, id) {
  var entries = __domEntries(doc);
  for (var i = 0; i < entries.length; i++) if (entries[i].id === id) return entries[i].layer;
  __fail("LAYER_NOT_FOUND", "No layer with id " + id, { layerId: id, documentId: doc.id });
}

// ---- The ActionManager read ---------------------------------------------------------------------------------

// One named property of a layer (by "index" or "id") of the document with this id: one property per get, as
// Adobe advises (getting every property of an element is slow), and the document named so that nothing switches.
function __amLayer(form, value, docId, key) {
  var ref = new ActionReference(), k = stringIDToTypeID;
  ref.putProperty(k("property"), k(key));
  if (form === "index") ref.putIndex(k("layer"), value); else ref.putIdentifier(k("layer"), value);
  ref.putIdentifier(k("document"), docId);
  return executeActionGet(ref);
}

function __amDocument(doc, key) {
  var ref = new ActionReference();
  ref.putProperty(stringIDToTypeID("property"), stringIDToTypeID(key));
  ref.putIdentifier(stringIDToTypeID("document"), doc.id);
  return executeActionGet(ref);
}

// The stack bottom-up as {id, section}. Indices are probed from 0 to numberOfLayers + 1, which covers counting
// from 0 (with a Background layer) and from 1 (without); an index that does not answer is skipped, one that
// answers a layer already seen is dropped. Everything after the id is read by id.
function __amStack(doc, count) {
  var out = [], seen = {}, k = stringIDToTypeID;
  for (var i = 0; i <= count + 1; i++) {
    var id;
    try { id = __amLayer("index", i, doc.id, "layerID").getInteger(k("layerID")); } catch (e) { continue; }
    if (seen[id]) continue;
    seen[id] = true;
    out.push({ id: id, section: typeIDToStringID(__amLayer("id", id, doc.id, "layerSection").getEnumerationValue(k("layerSection"))) });
  }
  return out;
}

function __amInfo(entry) {
  var k = stringIDToTypeID, get = function (key) { return __amLayer("id", entry.id, entry.doc.id, key); };
  var b = get("bounds").getObjectValue(k("bounds")), side = function (s) { return b.getUnitDoubleValue(k(s)); };
  var kind = "group";
  if (!entry.children) {
    var code = get("layerKind").getInteger(k("layerKind"));
    kind = __SHEET_KINDS[code];
    if (!kind) throw new Error("layerKind " + code + " is not a kind the bridge knows");
    if (__FILL_CODES[code] === true && get("hasVectorMask").getBoolean(k("hasVectorMask")) === true) kind = "shape";
  }
  // `group` (clipped to the layer below) may be absent where nothing can be clipped: absent reads as not clipped,
  // as the DOM's `grouped` does.
  var clipped = false;
  try { clipped = get("group").getBoolean(k("group")) === true; } catch (e) {}
  // opacity and fillOpacity are 0-255 (an opaque layer reads 255), the DOM's are percentages; `layerLocking`'s
  // protectAll is Lock All.
  var extras = { locked: get("layerLocking").getObjectValue(k("layerLocking")).getBoolean(k("protectAll")) === true,
    fillOpacity: entry.children ? undefined : Math.round(get("fillOpacity").getInteger(k("fillOpacity")) * 100 / 255),
    mask: __maskOf(entry.doc.id, entry.id), text: kind === "text" ? __amText(entry) : undefined,
    content: __contentOf(entry.doc.id, entry.id, kind), effects: __effectsOf(entry.doc.id, entry.id) };
  return __infoFrom(entry.id, entry.index, get("name").getString(k("name")), kind, get("visible").getBoolean(k("visible")),
    Math.round(get("opacity").getInteger(k("opacity")) * 100 / 255),
    typeIDToStringID(get("mode").getEnumerationValue(k("mode"))).toLowerCase(),
    [side("left"), side("top"), side("right"), side("bottom")], clipped, extras);
}

// The DOM layer of an entry of the ActionManager read, found by its place among its parent's layers (the stack's
// order, top first, is the DOM's): as many DOM reads as the entry is deep, not a walk of the whole document.
function __domOfEntry(entry) {
  return (entry.parent ? __domOfEntry(entry.parent).layers : entry.doc.layers)[entry.position];
}

// A text layer's text, which only the DOM's TextItem gives. Where the layer turns out not to be a text layer (the
// ActionManager's layerKind disagreeing with the DOM) there is none, and the layer reads without `text`: for the
// top-level layers the read checks, the disagreement then sends the whole read through the DOM, saying why.
function __amText(entry) {
  try { return __textOf(__domOfEntry(entry)); } catch (e) { return undefined; }
}

// Entries built from the stack, or a string saying why the stack cannot be right.
function __amTree(doc) {
  var count = __amDocument(doc, "numberOfLayers").getInteger(stringIDToTypeID("numberOfLayers"));
  var background = __amDocument(doc, "hasBackgroundLayer").getBoolean(stringIDToTypeID("hasBackgroundLayer"));
  var expected = count + (background ? 1 : 0), stack = __amStack(doc, count);
  if (stack.length !== expected) return "it read " + stack.length + " layers where numberOfLayers and hasBackgroundLayer say " + expected;
  var out = [], top = [], open = [];
  for (var i = stack.length - 1; i >= 0; i--) {
    var r = stack[i];
    if (r.section === "layerSectionEnd") {
      if (open.length === 0) return "a group's end comes before its start";
      open.pop();
      continue;
    }
    if (r.section !== "layerSectionStart" && r.section !== "layerSectionContent") return "layerSection " + r.section + " is unknown";
    var siblings = open.length === 0 ? top : open[open.length - 1].children;
    var entry = { id: r.id, doc: doc, index: i, depth: open.length, parent: open.length === 0 ? null : open[open.length - 1], position: siblings.length };
    siblings.push(entry);
    out.push(entry);
    if (r.section === "layerSectionStart") { entry.children = []; open.push(entry); }
  }
  if (open.length !== 0) return "a group has no end";
  var dom = doc.layers;
  if (dom.length !== top.length) return "it read " + top.length + " top-level layers where the DOM has " + dom.length;
  // The top-most and the bottom-most top-level layers (the Background layer when there is one) are read both ways
  // and must agree field by field: two layers whatever the document's size keep the check cheap.
  var checked = top.length > 1 ? [0, top.length - 1] : [0];
  for (var c = 0; c < checked.length; c++) {
    var at = checked[c], domRead = __domInfo({ layer: dom[at], doc: doc, index: top[at].index });
    top[at].info = __amInfo(top[at]);
    // The DOM reads every fill layer as `shape` (see __KINDS): a `fill` here agrees with it.
    if (top[at].info.kind === "fill" && domRead.kind === "shape") domRead.kind = "fill";
    var domInfo = __json(domRead), amInfo = __json(top[at].info);
    if (domInfo !== amInfo) return "top-level layer " + at + " reads " + amInfo + " where the DOM reads " + domInfo;
  }
  return out;
}

// Layer info without children, read once per entry. An ActionManager entry whose own read fails is read through
// the DOM (found by id) and noted.
function __infoOf(entry) {
  if (entry.info) return entry.info;
  if (entry.layer) return (entry.info = __domInfo(entry));
  try {
    entry.info = __amInfo(entry);
  } catch (e) {
    __note("layer " + entry.id + " read through the DOM: the ActionManager read failed (" + String(e) + ")");
    entry.info = __domInfo({ layer: __domLayer(entry.doc, entry.id), doc: entry.doc, index: entry.index });
  }
  return entry.info;
}

function __visible(entry) {
  if (entry.info || entry.layer) return entry.info ? entry.info.visible : entry.layer.visible;
  try { return __amLayer("id", entry.id, entry.doc.id, "visible").getBoolean(stringIDToTypeID("visible")); } catch (e) { return __infoOf(entry).visible; }
}

// `params.layerTree: "dom"` reads through the DOM only (the checklist compares both reads on a real Photoshop).
function __entries(doc) {
  if (typeof params === "undefined" || params === null || params.layerTree !== "dom") {
    var tree;
    try { tree = __amTree(doc); } catch (e) { tree = "it failed (" + String(e) + ")"; }
    if (typeof tree !== "string") return tree;
    __note("layer tree read through the DOM: the ActionManager read was not trusted: " + tree);
  }
  return __domEntries(doc);
}

function __layerInfo(entry, children) {
  var info = __infoOf(entry), out = {};
  for (var key in info) if (info.hasOwnProperty(key)) out[key] = info[key];
  if (children && entry.children) {
    out.children = [];
    for (var i = 0; i < entry.children.length; i++) out.children.push(__layerInfo(entry.children[i], true));
  }
  return out;
}

function __activeEntries(doc, entries) {
  var ids = __activeIds(doc), out = [];
  for (var i = 0; i < entries.length; i++) {
    for (var j = 0; j < ids.length; j++) if (entries[i].id === ids[j]) out.push(entries[i]);
  }
  return out;
}

// The entry of the layer with this id (the bridge resolved the reference; the layer may be gone since).
function __layer(doc, id) {
  var entries = __entries(doc);
  for (var i = 0; i < entries.length; i++) if (entries[i].id === id) return entries[i];
  __fail("LAYER_NOT_FOUND", "No layer with id " + id, { layerId: id, documentId: doc.id });
}
