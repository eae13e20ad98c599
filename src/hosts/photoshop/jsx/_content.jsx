// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// The ActionManager descriptors of fill and adjustment contents (the DOM has none), shared by edit.layer and
// edit.filter. Layer > New Fill Layer and New Adjustment Layer are `make` of a `contentLayer` / `adjustmentLayer`
// class reference `using` a descriptor of that class whose `type` is the content: solidColorLayer {color},
// gradientLayer {gradient, type, angle, scale, reverse, align, offset, gradientsInterpolationMethod}, patternLayer
// {pattern {name}, scale}, or the adjustment's own class. Image > Adjustments plays the same content as an event on
// the active layer's pixels (edit.filter). The adapter refuses what Photoshop is not asked here (solid fills with
// alpha) before the script runs.
// Colours and gradients (__rgb, __gradient) are _edit.jsx's, which every edit gets.

// {cls, desc}: the content of a fill layer.
function __fillContent(f) {
  var k = stringIDToTypeID, d = new ActionDescriptor();
  if (f.type === "solid") {
    d.putObject(k("color"), k("RGBColor"), __rgb(f.color));
    return { cls: "solidColorLayer", desc: d };
  }
  if (f.type === "pattern") {
    // The pattern by its preset's name alone (__withPattern defined it), at its own size.
    var pattern = new ActionDescriptor();
    pattern.putString(k("name"), f.preset);
    d.putObject(k("pattern"), k("pattern"), pattern);
    d.putUnitDouble(k("scale"), k("percentUnit"), 100);
    return { cls: "patternLayer", desc: d };
  }
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
  // The interpolation (Photoshop 2022's Method menu) only when it is not classic: older versions know classic only.
  if (f.interpolation !== "classic") d.putEnumerated(k("gradientsInterpolationMethod"), k("gradientInterpolationMethodType"), k(f.interpolation));
  return { cls: "gradientLayer", desc: d };
}

// ---- Pattern fills --------------------------------------------------------------------------------------------
// A pattern fill layer names one of Photoshop's pattern presets. The image (a PNG the bridge wrote at `path`) is
// opened as a temporary document, all of it selected, and made the preset `preset` by Edit > Define Pattern (`make`
// of a `pattern` class reference `using` the document's selection, with a `name`); the temporary document is closed
// without saving and `doc` made active again. After the edit the preset is deleted (`delete` of the pattern by
// name), so the user's presets are left as they were; if that fails the edit still stands and a note says so.
function __definePattern(doc, path, preset) {
  if (!new File(path).exists) __fail("NOT_FOUND", "The pattern's image is gone: " + path, { path: path });
  var k = stringIDToTypeID, src = app.open(new File(path));
  try {
    src.selection.selectAll();
    var desc = new ActionDescriptor(), ref = new ActionReference(), using = new ActionReference();
    ref.putClass(k("pattern"));
    desc.putReference(k("null"), ref);
    using.putProperty(k("property"), k("selection"));
    using.putEnumerated(k("document"), k("ordinal"), k("targetEnum"));
    desc.putReference(k("using"), using);
    desc.putString(k("name"), preset);
    executeAction(k("make"), desc, DialogModes.NO);
  } finally {
    src.close(SaveOptions.DONOTSAVECHANGES);
    app.activeDocument = doc;
  }
}

function __deletePattern(preset) {
  var k = stringIDToTypeID, desc = new ActionDescriptor(), ref = new ActionReference();
  ref.putName(k("pattern"), preset);
  desc.putReference(k("null"), ref);
  try {
    executeAction(k("delete"), desc, DialogModes.NO);
  } catch (e) {
    __note("The pattern preset \"" + preset + "\" the fill was made from could not be deleted: " + String(e));
  }
}

// Answers what `body` answers, run with the pattern preset `preset` defined from the image at `path`.
function __withPattern(doc, path, preset, body) {
  __definePattern(doc, path, preset);
  try {
    return body();
  } finally {
    __deletePattern(preset);
  }
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
    // Colorize (`Clrz`) is the master entry alone, holding the colour: hue 0-360, saturation 0-100, lightness.
    var list = new ActionList(), colorize = a.colorize !== null;
    list.putObject(k("hueSatAdjustmentV2"), __hsl(new ActionDescriptor(), colorize ? a.colorize : a));
    for (var r = 0; r < __HUE_RANGES.length && !colorize; r++) {
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
    d.putBoolean(k("colorize"), colorize);
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
