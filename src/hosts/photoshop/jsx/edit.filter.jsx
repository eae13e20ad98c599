// @bridge-op edit.filter
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// layer:adjust and filter:apply through the DOM's ArtLayer methods (Photoshop JavaScript Reference, ArtLayer), on
// the layer made the active one, inside the selection when there is one (the DOM's adjustments and filters act on
// it). p.edit carries the resolved settings (every default decided by the bridge). Each edit is one history state
// named p.history; a setting the DOM method cannot take is refused before it starts. Answers {}.
// The types the DOM has no method for (exposure, hue/saturation, vibrance, black & white, gradient map, box blur,
// pixelate, emboss) are played as the ActionManager events Image > Adjustments and the Filter menu record, on the
// active layer inside the selection as the DOM's methods act.

// The DOM's ranges where they are narrower than the vocabulary's.
var __DOM_BRIGHTNESS = 100, __DOM_MOTION_DISTANCE = 999, __DOM_CURVE_POINTS = 14;

function __unsupportedSetting(capability, field, message) {
  __fail("NOT_SUPPORTED", message, { editor: "photoshop", capability: capability, field: field });
}

// Levels or curves per colour channel first (each made the only active channel), then the composite (all of
// them active): the order Photoshop's Levels and Curves apply them in.
function __perChannel(doc, a, apply) {
  var names = ["red", "green", "blue"], channels = doc.componentChannels;
  for (var i = 0; i < names.length; i++) {
    if (a[names[i]] === null) continue;
    doc.activeChannels = [channels[i]];
    apply(a[names[i]]);
  }
  doc.activeChannels = doc.componentChannels;
  if (a.rgb !== null) apply(a.rgb);
}

function __points(curve) {
  var out = [];
  for (var i = 0; i < curve.length; i++) out.push([curve[i].input, curve[i].output]);
  return out;
}

function __row(r) { return [r.red, r.green, r.blue, r.constant]; }
function __shift(s) { return [s.cyanRed, s.magentaGreen, s.yellowBlue]; }
function __inks(k) { return [k.cyan, k.magenta, k.yellow, k.black]; }

// Plays `event` with `desc` on the active layer.
function __play(event, desc) {
  return function () { executeAction(event, desc, DialogModes.NO); };
}

// Image > Adjustments for the types without an ArtLayer method: the event is the adjustment's class, with the
// descriptor its adjustment layer takes (_content.jsx) and presetKind custom, as ScriptListener records them (Gradient
// Map's event is `GrMp`, its layer's class gradientMapClass).
var __AM_ADJUSTMENTS = { exposure: true, hueSaturation: true, vibrance: true, blackAndWhite: true, gradientMap: true };

function __amAdjustment(a) {
  var k = stringIDToTypeID, content = __adjustmentContent(a);
  if (a.type !== "gradientMap") content.desc.putEnumerated(k("presetKind"), k("presetKindType"), k("presetKindCustom"));
  return __play(a.type === "gradientMap" ? charIDToTypeID("GrMp") : k(content.cls), content.desc);
}

// What an adjustment does to `layer`, checked before the history state starts.
function __adjustment(doc, a) {
  var cap = "layer:adjust";
  if (__AM_ADJUSTMENTS[a.type] === true) return __amAdjustment(a);
  if (a.type === "brightnessContrast") {
    // ArtLayer.adjustBrightnessContrast(brightness, contrast) takes -100..100 each and has no Use Legacy switch.
    if (a.legacy) __unsupportedSetting(cap, "adjustment.legacy", "Photoshop's DOM Brightness/Contrast has no Use Legacy switch");
    if (Math.abs(a.brightness) > __DOM_BRIGHTNESS) __unsupportedSetting(cap, "adjustment.brightness", "Photoshop's DOM Brightness/Contrast takes brightness -100 to 100");
    return function (layer) { layer.adjustBrightnessContrast(a.brightness, a.contrast); };
  }
  if (a.type === "levels") {
    return function (layer) {
      __perChannel(doc, a, function (c) { layer.adjustLevels(c.inputBlack, c.inputWhite, c.gamma, c.outputBlack, c.outputWhite); });
    };
  }
  if (a.type === "curves") {
    // ArtLayer.adjustCurves(curveShape) takes up to fourteen points.
    var keys = ["rgb", "red", "green", "blue"];
    for (var i = 0; i < keys.length; i++) {
      if (a[keys[i]] !== null && a[keys[i]].length > __DOM_CURVE_POINTS) __unsupportedSetting(cap, "adjustment." + keys[i], "Photoshop's DOM Curves takes up to 14 points a channel");
    }
    return function (layer) { __perChannel(doc, a, function (c) { layer.adjustCurves(__points(c)); }); };
  }
  if (a.type === "colorBalance") {
    return function (layer) { layer.adjustColorBalance(__shift(a.shadows), __shift(a.midtones), __shift(a.highlights), a.preserveLuminosity); };
  }
  if (a.type === "photoFilter") {
    return function (layer) { layer.photoFilter(__solid(a.color), a.density, a.preserveLuminosity); };
  }
  if (a.type === "channelMixer") {
    // ArtLayer.mixChannels(outputChannels, monochrome): one row when monochrome, else red, green and blue's.
    var rows = a.monochrome ? [__row(a.red)] : [__row(a.red), __row(a.green), __row(a.blue)];
    return function (layer) { layer.mixChannels(rows, a.monochrome); };
  }
  if (a.type === "invert") return function (layer) { layer.invert(); };
  if (a.type === "posterize") return function (layer) { layer.posterize(a.levels); };
  if (a.type === "threshold") return function (layer) { layer.threshold(a.level); };
  if (a.type === "selectiveColor") {
    var method = a.mode === "absolute" ? AdjustmentReference.ABSOLUTE : AdjustmentReference.RELATIVE;
    return function (layer) {
      layer.selectiveColor(method, __inks(a.reds), __inks(a.yellows), __inks(a.greens), __inks(a.cyans), __inks(a.blues),
        __inks(a.magentas), __inks(a.whites), __inks(a.neutrals), __inks(a.blacks));
    };
  }
  __fail("NOT_SUPPORTED", "Photoshop's DOM has no " + a.type + " adjustment", { editor: "photoshop", capability: cap, type: a.type });
}

// Photoshop's Emboss has an angle, a height and an amount but no elevation: only the vocabulary's default elevation
// is taken, another is refused. The amount is Photoshop's default.
var __EMBOSS_ELEVATION = 45, __EMBOSS_AMOUNT = 100;

// Filter > Blur > Box Blur, Pixelate > Mosaic and Stylize > Emboss, as ScriptListener records them: `boxblur` with
// its radius in pixels, `Msc ` with its cell size (`ClSz`) in pixels, `Embs` with its angle (`Angl`, degrees
// -180..180 counter-clockwise from the right, whole), height (`Hght`, whole pixels) and amount (`Amnt`, percent).
function __amFilter(f) {
  var desc = new ActionDescriptor(), c = charIDToTypeID;
  if (f.type === "boxBlur") {
    desc.putUnitDouble(stringIDToTypeID("radius"), stringIDToTypeID("pixelsUnit"), f.radius);
    return __play(stringIDToTypeID("boxblur"), desc);
  }
  if (f.type === "pixelate") {
    desc.putUnitDouble(c("ClSz"), c("#Pxl"), f.size);
    return __play(c("Msc "), desc);
  }
  if (f.elevation !== __EMBOSS_ELEVATION) __unsupportedSetting("filter:apply", "filter.elevation", "Photoshop's Emboss has no elevation: only the default 45 is taken");
  var angle = Math.round(f.azimuth);
  desc.putInteger(c("Angl"), angle > 180 ? angle - 360 : angle);
  desc.putInteger(c("Hght"), f.depth);
  desc.putInteger(c("Amnt"), __EMBOSS_AMOUNT);
  return __play(c("Embs"), desc);
}

// What a filter does to `layer`, checked before the history state starts. Radii are pixels, as the DOM's.
function __filter(f) {
  var cap = "filter:apply";
  if (f.type === "boxBlur" || f.type === "pixelate" || f.type === "emboss") return __amFilter(f);
  if (f.type === "gaussianBlur") return function (layer) { layer.applyGaussianBlur(f.radius); };
  if (f.type === "motionBlur") {
    // ArtLayer.applyMotionBlur(angle, radius): angle -360..360 degrees, radius (the smear's length) 1..999 pixels.
    if (f.distance > __DOM_MOTION_DISTANCE) __unsupportedSetting(cap, "filter.distance", "Photoshop's DOM Motion Blur takes a distance up to 999 pixels");
    return function (layer) { layer.applyMotionBlur(f.angle, f.distance); };
  }
  if (f.type === "unsharpMask") return function (layer) { layer.applyUnSharpMask(f.amount, f.radius, f.threshold); };
  if (f.type === "sharpen") return function (layer) { layer.applySharpen(); };
  if (f.type === "addNoise") {
    var distribution = f.distribution === "gaussian" ? NoiseDistribution.GAUSSIAN : NoiseDistribution.UNIFORM;
    return function (layer) { layer.applyAddNoise(f.amount, distribution, f.monochromatic); };
  }
  if (f.type === "median") return function (layer) { layer.applyMedianNoise(f.radius); };
  if (f.type === "highPass") return function (layer) { layer.applyHighPass(f.radius); };
  __fail("NOT_SUPPORTED", "Photoshop's DOM has no " + f.type + " filter", { editor: "photoshop", capability: cap, type: f.type });
}

function run(p) {
  var doc = __activate(__doc(p.documentId)), e = p.edit;
  var layer = __unlocked(doc, __domLayer(doc, e.layerId));
  if (layer.typename !== "ArtLayer") __fail("BAD_REQUEST", "Layer " + e.layerId + " is a group: only pixel layers", { layerId: e.layerId });
  var apply = e.op === "layer:adjust" ? __adjustment(doc, e.adjustment) : __filter(e.filter);
  return __inHistory(doc, p.history, function () {
    __selectLayer(e.layerId);
    apply(layer);
    return {};
  });
}
