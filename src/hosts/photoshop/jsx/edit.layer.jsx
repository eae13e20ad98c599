// @bridge-op edit.layer
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// The layer edits of the vocabulary (p.edit, every default decided by the bridge), each one history state named
// p.history: create, update, delete, duplicate, move, group, ungroup, merge, rasterize, fill, clear, and text layers
// made and changed (layer:create {kind: "text"}, layer:updateText), fill and adjustment layers made and changed
// through the ActionManager (layer:create {kind: "fill" | "adjustment"}, layer:update {fill | adjustment}). Layers are
// found by id and changed through the DOM; `layer.move(relativeObject, ElementPlacement)` places them
// (PLACEBEFORE is above a layer, PLACEAFTER below it, INSIDE into an empty group). Answers {layerId?}.

// Where p.edit.place points, checked before anything changes: {how, target}.
function __placeTarget(doc, place) {
  if (place.to !== undefined) return { how: place.to };
  if (place.above !== undefined) return { how: "above", target: __domLayer(doc, place.above) };
  if (place.parent !== undefined) return { how: "parent", target: __domLayer(doc, place.parent) };
  var below = __domLayer(doc, place.below);
  if (below.typename === "ArtLayer" && below.isBackgroundLayer) {
    __fail("BAD_REQUEST", "Nothing can go below the Background layer", { below: place.below, documentId: doc.id });
  }
  return { how: "below", target: below };
}

function __isBackground(layer) { return layer.typename === "ArtLayer" && layer.isBackgroundLayer; }

// Moves `layer` where `to` says; a layer already there is left alone (moving a layer relative to itself fails).
// The bottom of a document with a Background layer is just above it, where Layer > Arrange > Send to Back puts a
// layer (the Background layer stays the bottom-most).
function __place(doc, layer, to) {
  var layers = doc.layers, n = layers.length;
  if (to.how === "top") {
    if (layers[0].id !== layer.id) layer.move(layers[0], ElementPlacement.PLACEBEFORE);
  } else if (to.how === "bottom") {
    var last = layers[n - 1];
    if (__isBackground(last)) {
      if (n < 2 || layers[n - 2].id !== layer.id) layer.move(last, ElementPlacement.PLACEBEFORE);
    } else if (last.id !== layer.id) {
      layer.move(last, ElementPlacement.PLACEAFTER);
    }
  } else if (to.how === "above") {
    if (to.target.id !== layer.id) layer.move(to.target, ElementPlacement.PLACEBEFORE);
  } else if (to.how === "below") {
    if (to.target.id !== layer.id) layer.move(to.target, ElementPlacement.PLACEAFTER);
  } else {
    var children = to.target.layers;
    if (children.length === 0) layer.move(to.target, ElementPlacement.INSIDE);
    else if (children[0].id !== layer.id) layer.move(children[0], ElementPlacement.PLACEBEFORE);
  }
}

// Fills the selection of the active layer, or all of it when nothing is selected (Selection.fill fills the
// selection; the whole layer is selected for it and deselected after).
function __fillSelection(doc, rgba, opacity, blendMode, whole) {
  var mode = __blendConstant(ColorBlendMode, blendMode), saved = null, had = __selectionRect(doc) !== null;
  if (whole && had) {
    // The selection is kept in a temporary alpha channel while the whole layer is filled (Selection.store and
    // Selection.load), and the composite channels are made the targets again before filling.
    saved = doc.channels.add();
    doc.selection.store(saved);
    doc.activeChannels = doc.componentChannels;
  }
  if (whole || !had) doc.selection.selectAll();
  // Selection.fill takes an opacity of 1-100; nothing at all is painted below that.
  var strength = opacity * rgba[3] / 255;
  if (strength >= 0.5) doc.selection.fill(__solid(rgba), mode, Math.max(1, Math.round(strength)), false);
  if (saved !== null) {
    doc.selection.load(saved);
    saved.remove();
  } else if (whole || !had) {
    doc.selection.deselect();
  }
}

function __create(doc, e) {
  var to = __placeTarget(doc, e.place);
  return __inHistory(doc, p_history, function () {
    var layer = e.kind === "group" ? doc.layerSets.add() : doc.artLayers.add();
    layer.name = e.name;
    __place(doc, layer, to);
    if (e.fillColor) {
      __selectLayer(layer.id);
      __fillSelection(doc, e.fillColor, 100, "normal", true);
    }
    return { layerId: layer.id };
  });
}

function __update(doc, e) {
  var layer = __domLayer(doc, e.layerId), group = layer.typename === "LayerSet";
  var blend = e.blendMode === undefined ? undefined : __blendConstant(BlendMode, e.blendMode);
  if (e.fillOpacity !== undefined && group) __fail("BAD_REQUEST", "A group has no fill opacity", { layerId: e.layerId, fillOpacity: e.fillOpacity });
  if (__isBackground(layer) && (e.opacity !== undefined || e.blendMode !== undefined || e.fillOpacity !== undefined)) {
    __fail("BAD_REQUEST", "The Background layer has no opacity or blend mode of its own", { layerId: e.layerId });
  }
  var fill = e.fill ? __fillContent(e.fill) : null, adjustment = e.adjustment ? __adjustmentContent(e.adjustment) : null;
  return __inHistory(doc, p_history, function () {
    // A fully locked layer takes no other change: it is unlocked first and locked again after, unless asked not to be.
    var wasLocked = layer.allLocked === true;
    if (wasLocked) layer.allLocked = false;
    if (fill !== null || adjustment !== null) __selectLayer(e.layerId);
    if (fill !== null) __setContent("contentLayer", fill);
    if (adjustment !== null) __setContent("adjustmentLayer", adjustment);
    if (e.name !== undefined) layer.name = e.name;
    if (e.visible !== undefined) layer.visible = e.visible;
    if (e.opacity !== undefined) layer.opacity = e.opacity;
    if (blend !== undefined) layer.blendMode = blend;
    if (e.fillOpacity !== undefined) layer.fillOpacity = e.fillOpacity;
    var lock = e.locked === undefined ? wasLocked : e.locked;
    if (lock) layer.allLocked = true;
    return {};
  });
}

function __remove(doc, e) {
  var layer = __domLayer(doc, e.layerId);
  if (doc.layers.length === 1 && doc.layers[0].id === layer.id) __fail("BAD_REQUEST", "A document keeps at least one layer", { layerId: e.layerId });
  return __inHistory(doc, p_history, function () { layer.remove(); return {}; });
}

function __duplicate(doc, e) {
  var layer = __domLayer(doc, e.layerId), to = __placeTarget(doc, e.place);
  return __inHistory(doc, p_history, function () {
    // ArtLayer.duplicate() / LayerSet.duplicate() with no arguments: a copy directly above, in the same document.
    var copy = layer.duplicate();
    copy.name = e.name;
    __place(doc, copy, to);
    __selectLayer(copy.id);
    return { layerId: copy.id };
  });
}

function __moveLayer(doc, e) {
  var layer = __domLayer(doc, e.layerId), to = __placeTarget(doc, e.place);
  if (__isBackground(layer)) __fail("BAD_REQUEST", "The Background layer cannot move in the stack", { layerId: e.layerId });
  return __inHistory(doc, p_history, function () { __place(doc, layer, to); return {}; });
}

// A new group where the top-most layer is; the layers go into it in order (the first into the empty group, each
// next one directly below the one before).
function __group(doc, e) {
  var layers = [];
  for (var i = 0; i < e.layerIds.length; i++) {
    layers.push(__domLayer(doc, e.layerIds[i]));
    if (__isBackground(layers[i])) __fail("BAD_REQUEST", "The Background layer cannot go into a group", { layerId: e.layerIds[i] });
  }
  return __inHistory(doc, p_history, function () {
    var group = doc.layerSets.add();
    group.name = e.name;
    group.move(layers[0], ElementPlacement.PLACEBEFORE);
    layers[0].move(group, ElementPlacement.INSIDE);
    for (var j = 1; j < layers.length; j++) layers[j].move(layers[j - 1], ElementPlacement.PLACEAFTER);
    return { layerId: group.id };
  });
}

// The group's layers go directly above it, top-most first (so they keep their order), then the empty group goes.
function __ungroup(doc, e) {
  var group = __domLayer(doc, e.layerId);
  if (group.typename !== "LayerSet") __fail("BAD_REQUEST", "Layer " + e.layerId + " is not a group", { layerId: e.layerId });
  return __inHistory(doc, p_history, function () {
    var children = [];
    for (var i = 0; i < group.layers.length; i++) children.push(group.layers[i]);
    for (var j = 0; j < children.length; j++) children[j].move(group, ElementPlacement.PLACEBEFORE);
    group.remove();
    return {};
  });
}

// Layer > Merge Layers on the layers made the active ones (the ActionManager's mergeLayersNew): one pixel layer
// where the top-most was, which becomes the active layer; it is then named.
function __merge(doc, e) {
  for (var i = 0; i < e.layerIds.length; i++) __unlocked(doc, __domLayer(doc, e.layerIds[i]));
  return __inHistory(doc, p_history, function () {
    for (var j = 0; j < e.layerIds.length; j++) {
      var desc = new ActionDescriptor(), ref = new ActionReference();
      ref.putIdentifier(charIDToTypeID("Lyr "), e.layerIds[j]);
      desc.putReference(charIDToTypeID("null"), ref);
      if (j > 0) desc.putEnumerated(stringIDToTypeID("selectionModifier"), stringIDToTypeID("selectionModifierType"), stringIDToTypeID("addToSelection"));
      desc.putBoolean(charIDToTypeID("MkVs"), false);
      executeAction(charIDToTypeID("slct"), desc, DialogModes.NO);
    }
    executeAction(stringIDToTypeID("mergeLayersNew"), new ActionDescriptor(), DialogModes.NO);
    var merged = doc.activeLayer;
    merged.name = e.name;
    return { layerId: merged.id };
  });
}

// ArtLayer.rasterize(RasterizeType.ENTIRELAYER); a pixel layer has nothing to rasterize: no change, no history state.
function __rasterize(doc, e) {
  var layer = __domLayer(doc, e.layerId);
  if (layer.typename !== "ArtLayer") __fail("BAD_REQUEST", "Layer " + e.layerId + " is a group: merge its layers instead", { layerId: e.layerId });
  __unlocked(doc, layer);
  if (String(layer.kind) === "LayerKind.NORMAL") return {};
  return __inHistory(doc, p_history, function () {
    layer.rasterize(RasterizeType.ENTIRELAYER);
    return {};
  });
}

function __fill(doc, e) {
  __unlocked(doc, __domLayer(doc, e.layerId));
  return __inHistory(doc, p_history, function () {
    __selectLayer(e.layerId);
    __fillSelection(doc, e.color, e.opacity, e.blendMode, false);
    return {};
  });
}

// Selection.clear() (Edit > Clear) on the active layer; a Background layer has no transparency (Clear paints it
// with the background colour), so it is refused.
function __clear(doc, e) {
  var layer = __unlocked(doc, __domLayer(doc, e.layerId));
  if (__isBackground(layer)) __fail("BAD_REQUEST", "The Background layer cannot be made transparent", { layerId: e.layerId });
  return __inHistory(doc, p_history, function () {
    __selectLayer(e.layerId);
    var had = __selectionRect(doc) !== null;
    if (!had) doc.selection.selectAll();
    doc.selection.clear();
    if (!had) doc.selection.deselect();
    return {};
  });
}


// ---- Text layers: the DOM's TextItem (Photoshop JavaScript Reference, ArtLayer.kind and TextItem) ----------------
// An empty art layer becomes a text layer by setting its kind to LayerKind.TEXT; its textItem then takes the text
// (contents, lines broken by "\r"), the font by PostScript name, the size in points (a UnitValue), a SolidColor,
// and the placement: TextType.POINTTEXT with the position where the first baseline starts, or
// TextType.PARAGRAPHTEXT with the box's top-left as position and its width and height.
var __JUSTIFICATIONS = { left: "LEFT", center: "CENTER", right: "RIGHT", justify: "LEFTJUSTIFIED" };

function __textSettings(item, s) {
  var box = s.box;
  item.kind = box ? TextType.PARAGRAPHTEXT : TextType.POINTTEXT;
  item.contents = s.text.replace(/\r\n|\n/g, "\r");
  item.font = s.font;
  item.size = new UnitValue(s.size, "pt");
  item.color = __solid(s.color);
  item.justification = Justification[__JUSTIFICATIONS[s.alignment]];
  if (s.leading === undefined || s.leading === null) {
    item.useAutoLeading = true;
  } else {
    item.useAutoLeading = false;
    item.leading = new UnitValue(s.leading, "pt");
  }
  item.tracking = s.tracking;
  if (s.baselineShift !== undefined && s.baselineShift !== null) item.baselineShift = new UnitValue(s.baselineShift, "pt");
  item.antiAliasMethod = AntiAlias[s.antiAlias.toUpperCase()];
  if (box) {
    item.position = [new UnitValue(box.x, "px"), new UnitValue(box.y, "px")];
    item.width = new UnitValue(box.width, "px");
    item.height = new UnitValue(box.height, "px");
  } else {
    item.position = [new UnitValue(s.position.x, "px"), new UnitValue(s.position.y, "px")];
  }
}

function __createText(doc, e) {
  var to = __placeTarget(doc, e.place);
  return __inHistory(doc, p_history, function () {
    var layer = doc.artLayers.add();
    layer.kind = LayerKind.TEXT;
    __textSettings(layer.textItem, e.text);
    layer.name = e.name;
    __place(doc, layer, to);
    return { layerId: layer.id };
  });
}

function __updateText(doc, e) {
  var layer = __domLayer(doc, e.layerId);
  if (layer.typename !== "ArtLayer" || String(layer.kind) !== "LayerKind.TEXT") __fail("BAD_REQUEST", "Layer " + e.layerId + " is not a text layer", { layerId: e.layerId });
  __unlocked(doc, layer);
  return __inHistory(doc, p_history, function () {
    __textSettings(layer.textItem, e.text);
    return {};
  });
}

// ---- Fill and adjustment layers: the ActionManager (the DOM has no call that makes them) ------------------------
// Layer > New Fill Layer and New Adjustment Layer are `make` of a `contentLayer` / `adjustmentLayer` class
// reference `using` a descriptor of that class whose `type` is the content: solidColorLayer {color},
// gradientLayer {gradient, type, angle, scale, reverse, align, offset}, or the adjustment's own class. Layer Content
// Options (and Layer > Change Layer Content) is `set` of the target content or adjustment layer `to` the content.
// The adapter refuses what Photoshop is not asked here (pattern fills, the adjustment types not below, solid fills
// with alpha, gradients without classic interpolation, hue/saturation ranges and colorize) before the script runs.
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

// {cls, desc}: the content of a fill layer.
function __fillContent(f) {
  var k = stringIDToTypeID, d = new ActionDescriptor();
  if (f.type === "solid") {
    d.putObject(k("color"), k("RGBColor"), __rgb(f.color));
    return { cls: "solidColorLayer", desc: d };
  }
  if (f.type !== "gradient") __fail("NOT_SUPPORTED", "Photoshop's scripting here makes solid and gradient fills", { editor: "photoshop", capability: "pattern fills", field: "fill.type" });
  d.putObject(k("gradient"), k("gradientClassEvent"), __gradient(f));
  d.putEnumerated(k("type"), k("gradientType"), k(f.style));
  d.putUnitDouble(k("angle"), k("angleUnit"), f.angle);
  d.putUnitDouble(k("scale"), k("percentUnit"), f.scale);
  d.putBoolean(k("reverse"), f.reverse);
  d.putBoolean(k("align"), f.align);
  var offset = new ActionDescriptor();
  offset.putUnitDouble(k("horizontal"), k("percentUnit"), f.offset.x);
  offset.putUnitDouble(k("vertical"), k("percentUnit"), f.offset.y);
  d.putObject(k("offset"), k("paint"), offset);
  return { cls: "gradientLayer", desc: d };
}

var __AM_CHANNELS = { rgb: "composite", red: "red", green: "green", blue: "blue" };

function __integers(values) {
  var list = new ActionList();
  for (var i = 0; i < values.length; i++) list.putInteger(Math.round(values[i]));
  return list;
}

// Hue/Saturation's ranges in localRange order, and the hues each covers by default (reds 315-345-15-45, each next
// one 60 degrees on).
var __HUE_RANGES = ["reds", "yellows", "greens", "cyans", "blues", "magentas"];
var __HUE_BOUNDS = [[315, 345, 15, 45], [15, 45, 75, 105], [75, 105, 135, 165], [135, 165, 195, 225], [195, 225, 255, 285], [255, 285, 315, 345]];

var __SELECTIVE_CLASSES = ["reds", "yellows", "greens", "cyans", "blues", "magentas", "whites", "neutrals", "blacks"];

function __hsl(d, c) {
  var k = stringIDToTypeID;
  d.putInteger(k("hue"), Math.round(c.hue));
  d.putInteger(k("saturation"), Math.round(c.saturation));
  d.putInteger(k("lightness"), Math.round(c.lightness));
  return d;
}

function __mixerRow(row) {
  var d = new ActionDescriptor(), k = stringIDToTypeID;
  d.putUnitDouble(k("red"), k("percentUnit"), row.red);
  d.putUnitDouble(k("grain"), k("percentUnit"), row.green);
  d.putUnitDouble(k("blue"), k("percentUnit"), row.blue);
  d.putUnitDouble(k("constant"), k("percentUnit"), row.constant);
  return d;
}

// {cls, desc}: the content of an adjustment layer, whole numbers as Photoshop's dialogs take them.
function __adjustmentContent(a) {
  var k = stringIDToTypeID, d = new ActionDescriptor();
  if (a.type === "brightnessContrast") {
    d.putInteger(k("brightness"), Math.round(a.brightness));
    d.putInteger(k("center"), Math.round(a.contrast));
    d.putBoolean(k("useLegacy"), a.legacy);
    return { cls: "brightnessEvent", desc: d };
  }
  if (a.type === "levels" || a.type === "curves") {
    // One levelsAdjustment / curvesAdjustment per channel that changes, each naming its channel (composite, red,
    // green, blue): input and output black and white points with the gamma, or the curve's points.
    var levels = a.type === "levels", channels = new ActionList(), names = ["rgb", "red", "green", "blue"];
    for (var i = 0; i < names.length; i++) {
      var c = a[names[i]];
      if (c === null) continue;
      var one = new ActionDescriptor(), ref = new ActionReference();
      ref.putEnumerated(k("channel"), k("channel"), k(__AM_CHANNELS[names[i]]));
      one.putReference(k("channel"), ref);
      if (levels) {
        one.putList(k("input"), __integers([c.inputBlack, c.inputWhite]));
        one.putDouble(k("gamma"), c.gamma);
        one.putList(k("output"), __integers([c.outputBlack, c.outputWhite]));
      } else {
        var points = new ActionList();
        for (var j = 0; j < c.length; j++) {
          var point = new ActionDescriptor();
          point.putDouble(k("horizontal"), c[j].input);
          point.putDouble(k("vertical"), c[j].output);
          points.putObject(k("paint"), point);
        }
        one.putList(k("curve"), points);
      }
      channels.putObject(k(levels ? "levelsAdjustment" : "curvesAdjustment"), one);
    }
    d.putList(k("adjustment"), channels);
    return { cls: a.type, desc: d };
  }
  if (a.type === "colorBalance") {
    // Each tonal range's cyan-red, magenta-green and yellow-blue shifts, -100 to 100.
    var ranges = { shadowLevels: a.shadows, midtoneLevels: a.midtones, highlightLevels: a.highlights };
    for (var key in ranges) if (ranges.hasOwnProperty(key)) d.putList(k(key), __integers([ranges[key].cyanRed, ranges[key].magentaGreen, ranges[key].yellowBlue]));
    d.putBoolean(k("preserveLuminosity"), a.preserveLuminosity);
    return { cls: "colorBalance", desc: d };
  }
  if (a.type === "blackAndWhite") {
    // Each hue sector's weight (percent), and the tint when there is one.
    var weights = { red: a.reds, yellow: a.yellows, grain: a.greens, cyan: a.cyans, blue: a.blues, magenta: a.magentas };
    for (var w in weights) if (weights.hasOwnProperty(w)) d.putInteger(k(w), Math.round(weights[w]));
    d.putBoolean(k("useTint"), a.tint !== null);
    if (a.tint !== null) d.putObject(k("tintColor"), k("RGBColor"), __rgb(a.tint));
    return { cls: "blackAndWhite", desc: d };
  }
  if (a.type === "photoFilter") {
    d.putObject(k("color"), k("RGBColor"), __rgb(a.color));
    d.putInteger(k("density"), Math.round(a.density));
    d.putBoolean(k("preserveLuminosity"), a.preserveLuminosity);
    return { cls: "photoFilter", desc: d };
  }
  if (a.type === "selectiveColor") {
    // One colorCorrection per colour class: the ink percentages added (relative) or set (absolute).
    var corrections = new ActionList();
    for (var sc = 0; sc < __SELECTIVE_CLASSES.length; sc++) {
      var inks = a[__SELECTIVE_CLASSES[sc]], corr = new ActionDescriptor();
      corr.putEnumerated(k("colors"), k("colors"), k(__SELECTIVE_CLASSES[sc]));
      corr.putUnitDouble(k("cyan"), k("percentUnit"), inks.cyan);
      corr.putUnitDouble(k("magenta"), k("percentUnit"), inks.magenta);
      corr.putUnitDouble(k("yellowColor"), k("percentUnit"), inks.yellow);
      corr.putUnitDouble(k("black"), k("percentUnit"), inks.black);
      corrections.putObject(k("colorCorrection"), corr);
    }
    d.putList(k("colorCorrection"), corrections);
    d.putEnumerated(k("method"), k("correctionMethod"), k(a.mode));
    return { cls: "selectiveColor", desc: d };
  }
  if (a.type === "invert") return { cls: "invert", desc: d };
  if (a.type === "posterize") {
    d.putInteger(k("levels"), a.levels);
    return { cls: "posterization", desc: d };
  }
  if (a.type === "threshold") {
    d.putInteger(k("level"), a.level);
    return { cls: "thresholdClassEvent", desc: d };
  }
  if (a.type === "hueSaturation") {
    // The master change (a hueSatAdjustmentV2 without a localRange), then one per hue range that changes: its
    // localRange (1 reds … 6 magentas) and the hues it covers (beginRamp, beginSustain, endSustain, endRamp).
    var list = new ActionList();
    list.putObject(k("hueSatAdjustmentV2"), __hsl(new ActionDescriptor(), a));
    for (var r = 0; r < __HUE_RANGES.length; r++) {
      var range = a.ranges[__HUE_RANGES[r]];
      if (range === null) continue;
      var one = new ActionDescriptor(), bounds = range.bounds === null ? __HUE_BOUNDS[r] : range.bounds;
      one.putInteger(k("localRange"), r + 1);
      one.putInteger(k("beginRamp"), Math.round(bounds[0]));
      one.putInteger(k("beginSustain"), Math.round(bounds[1]));
      one.putInteger(k("endSustain"), Math.round(bounds[2]));
      one.putInteger(k("endRamp"), Math.round(bounds[3]));
      list.putObject(k("hueSatAdjustmentV2"), __hsl(one, range));
    }
    d.putBoolean(k("colorize"), false);
    d.putList(k("adjustment"), list);
    return { cls: "hueSaturation", desc: d };
  }
  if (a.type === "exposure") {
    d.putDouble(k("exposure"), a.exposure);
    d.putDouble(k("offset"), a.offset);
    d.putDouble(k("gammaCorrection"), a.gamma);
    return { cls: "exposure", desc: d };
  }
  if (a.type === "vibrance") {
    d.putInteger(k("vibrance"), Math.round(a.vibrance));
    d.putInteger(k("saturation"), Math.round(a.saturation));
    return { cls: "vibrance", desc: d };
  }
  if (a.type === "channelMixer") {
    // Each output channel's channelMatrix (percent of red, green and blue, and a constant); monochrome has one, gray.
    d.putBoolean(k("monochromatic"), a.monochrome);
    var rows = a.monochrome ? { gray: a.red } : { red: a.red, grain: a.green, blue: a.blue };
    for (var out in rows) if (rows.hasOwnProperty(out)) d.putObject(k(out), k("channelMatrix"), __mixerRow(rows[out]));
    return { cls: "channelMixer", desc: d };
  }
  if (a.type === "gradientMap") {
    // The gradient as a fill's, each stop at midpoint 50.
    var stops = [];
    for (var g = 0; g < a.stops.length; g++) stops.push({ location: a.stops[g].location, color: a.stops[g].color, midpoint: 50 });
    d.putObject(k("gradient"), k("gradientClassEvent"), __gradient({ stops: stops, smoothness: 100 }));
    d.putBoolean(k("reverse"), a.reverse);
    return { cls: "gradientMapClass", desc: d };
  }
  __fail("NOT_SUPPORTED", "Photoshop's adjustment layers here do not make " + a.type, { editor: "photoshop", capability: "adjustment layers", field: "adjustment.type", type: a.type });
}

// Photoshop gives a new fill or adjustment layer a mask revealing everything (unless the Adjustments panel's "Add
// mask by default" is off): it is deleted, so the layer reads the same whatever that preference, and masks as any
// layer does (layer:addMask).
function __dropRevealAllMask(doc, id) {
  var k = stringIDToTypeID, has = false;
  try { has = __amLayer("id", id, doc.id, "hasUserMask").getBoolean(k("hasUserMask")) === true; } catch (e) {}
  if (!has) return;
  var desc = new ActionDescriptor(), ref = new ActionReference();
  ref.putEnumerated(k("channel"), k("channel"), k("mask"));
  desc.putReference(k("null"), ref);
  executeAction(k("delete"), desc, DialogModes.NO);
}

function __createContent(doc, e) {
  var to = __placeTarget(doc, e.place), fill = e.kind === "fill";
  var content = fill ? __fillContent(e.fill) : __adjustmentContent(e.adjustment), cls = fill ? "contentLayer" : "adjustmentLayer";
  return __inHistory(doc, p_history, function () {
    var k = stringIDToTypeID, desc = new ActionDescriptor(), ref = new ActionReference(), using = new ActionDescriptor();
    ref.putClass(k(cls));
    desc.putReference(k("null"), ref);
    using.putObject(k("type"), k(content.cls), content.desc);
    desc.putObject(k("using"), k(cls), using);
    executeAction(k("make"), desc, DialogModes.NO);
    var layer = doc.activeLayer;
    __dropRevealAllMask(doc, layer.id);
    layer.name = e.name;
    __place(doc, layer, to);
    return { layerId: layer.id };
  });
}

// The content of the active layer set to `content` (Layer Content Options).
function __setContent(cls, content) {
  var k = stringIDToTypeID, desc = new ActionDescriptor(), ref = new ActionReference();
  ref.putEnumerated(k(cls), k("ordinal"), k("targetEnum"));
  desc.putReference(k("null"), ref);
  desc.putObject(k("to"), k(content.cls), content.desc);
  executeAction(k("set"), desc, DialogModes.NO);
}

var p_history;
function run(p) {
  var doc = __activate(__doc(p.documentId)), e = p.edit;
  p_history = p.history;
  var ops = { "layer:create": __create, "layer:update": __update, "layer:delete": __remove, "layer:duplicate": __duplicate,
    "layer:move": __moveLayer, "layer:group": __group, "layer:ungroup": __ungroup, "layer:merge": __merge,
    "layer:rasterize": __rasterize, "layer:fill": __fill, "layer:clear": __clear, "layer:updateText": __updateText };
  if (e.op === "layer:create" && e.kind === "text") return __createText(doc, e);
  if (e.op === "layer:create" && (e.kind === "fill" || e.kind === "adjustment")) return __createContent(doc, e);
  if (!ops[e.op]) __fail("BAD_REQUEST", "edit.layer does not make " + e.op, { op: e.op });
  return ops[e.op](doc, e);
}
