// @bridge-op edit.effects
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// layer:setEffects: a layer's style (Layer > Layer Style) replaced whole through the ActionManager, one history state
// named p.history. The layer is made the active one; the global light, when the call sets it, is `set` of the
// document's `globalAngle` property to {globalLightingAngle, globalAltitude}; a style the layer has is cleared (Layer >
// Layer Style > Clear Layer Style, `dlfx`: whether `set` replaces a style or merges into it is not documented); then
// `set` of the target layer's `layerEffects` property `to` a layerEffects descriptor with one object per effect, or
// the list of a kind Photoshop stacks when there are several (the keys _effects.jsx reads back). Settings arrive
// resolved; the adapter refused what is not written here (colours with alpha). Answers {}.

function __fxEnum(d, key, type, value) {
  var k = stringIDToTypeID;
  d.putEnumerated(k(key), k(type), k(value));
}

function __fxUnit(d, key, unit, value) {
  var k = stringIDToTypeID;
  d.putUnitDouble(k(key), k(unit), value);
}

function __fxBlendMode(d, key, mode) {
  if (!__FX_BLEND_IDS.hasOwnProperty(mode)) __fail("BAD_REQUEST", "Photoshop has no effect blend mode \"" + mode + "\"", { blendMode: mode });
  __fxEnum(d, key, "blendMode", __FX_BLEND_IDS[mode]);
}

function __fxColor(d, key, rgba) { d.putObject(stringIDToTypeID(key), stringIDToTypeID("RGBColor"), __rgb(rgba)); }

// A contour (`shapeCurveType`): its points as curvePoints, or Photoshop's Linear one.
function __fxContour(d, key, points) {
  var k = stringIDToTypeID, shape = new ActionDescriptor(), curve = new ActionList();
  var at = points ? points : [{ x: 0, y: 0 }, { x: 255, y: 255 }];
  shape.putString(k("name"), points ? "Custom" : "Linear");
  for (var i = 0; i < at.length; i++) {
    var p = new ActionDescriptor();
    p.putDouble(k("horizontal"), at[i].x);
    p.putDouble(k("vertical"), at[i].y);
    curve.putObject(k("curvePoint"), p);
  }
  shape.putList(k("curve"), curve);
  d.putObject(k(key), k("shapeCurveType"), shape);
}

// What every effect starts with: on, in the style and in the dialog; its blend mode and opacity when it has them.
function __fxBase(e) {
  var d = new ActionDescriptor(), k = stringIDToTypeID;
  d.putBoolean(k("enabled"), true);
  d.putBoolean(k("present"), true);
  d.putBoolean(k("showInDialog"), true);
  if (e.blendMode !== undefined) __fxBlendMode(d, "mode", e.blendMode);
  if (e.opacity !== undefined) __fxUnit(d, "opacity", "percentUnit", e.opacity);
  return d;
}

// The global light, or the effect's own angle.
function __fxLight(d, e) {
  d.putBoolean(stringIDToTypeID("useGlobalAngle"), e.useGlobalLight);
  if (!e.useGlobalLight) __fxUnit(d, "localLightingAngle", "angleUnit", e.angle);
}

// A gradient and how it lies, for a gradient overlay and a gradient stroke.
function __fxGradient(d, g) {
  var k = stringIDToTypeID, offset = new ActionDescriptor();
  d.putObject(k("gradient"), k("gradientClassEvent"), __gradient(g));
  __fxEnum(d, "type", "gradientType", g.style);
  __fxUnit(d, "angle", "angleUnit", g.angle);
  __fxUnit(d, "scale", "percentUnit", g.scale);
  d.putBoolean(k("reverse"), g.reverse);
  d.putBoolean(k("align"), g.align);
  d.putBoolean(k("dither"), g.dither);
  // The interpolation (Photoshop 2022's Method menu) only when it is not classic, as for fill layers.
  if (g.interpolation !== "classic") __fxEnum(d, "gradientsInterpolationMethod", "gradientInterpolationMethodType", g.interpolation);
  __fxUnit(offset, "horizontal", "percentUnit", g.offset.x);
  __fxUnit(offset, "vertical", "percentUnit", g.offset.y);
  d.putObject(k("offset"), k("paint"), offset);
}

function __fxShadow(e, spread) {
  var d = __fxBase(e);
  __fxColor(d, "color", e.color);
  __fxLight(d, e);
  __fxUnit(d, "distance", "pixelsUnit", e.distance);
  __fxUnit(d, "chokeMatte", "pixelsUnit", spread);
  __fxUnit(d, "blur", "pixelsUnit", e.size);
  __fxUnit(d, "noise", "percentUnit", e.noise);
  d.putBoolean(stringIDToTypeID("antiAlias"), e.antiAlias);
  __fxContour(d, "transferSpec", e.contour);
  return d;
}

function __fxGlow(e, spread) {
  var d = __fxBase(e);
  __fxColor(d, "color", e.color);
  __fxEnum(d, "glowTechnique", "matteTechnique", __FX_GLOW_TECHNIQUES[e.technique]);
  __fxUnit(d, "chokeMatte", "pixelsUnit", spread);
  __fxUnit(d, "blur", "pixelsUnit", e.size);
  __fxUnit(d, "noise", "percentUnit", e.noise);
  __fxUnit(d, "shadingNoise", "percentUnit", e.jitter);
  d.putBoolean(stringIDToTypeID("antiAlias"), e.antiAlias);
  __fxContour(d, "transferSpec", e.contour);
  __fxUnit(d, "inputRange", "percentUnit", e.range);
  return d;
}

function __fxBevel(e) {
  var d = __fxBase({}), k = stringIDToTypeID;
  __fxEnum(d, "bevelStyle", "bevelEmbossStyle", e.style);
  __fxEnum(d, "bevelTechnique", "bevelTechnique", __FX_BEVEL_TECHNIQUES[e.technique]);
  __fxUnit(d, "strengthRatio", "percentUnit", e.depth);
  __fxEnum(d, "bevelDirection", "bevelEmbossStampStyle", __FX_BEVEL_DIRECTIONS[e.direction]);
  __fxUnit(d, "blur", "pixelsUnit", e.size);
  __fxUnit(d, "softness", "pixelsUnit", e.soften);
  __fxLight(d, e);
  __fxUnit(d, "localLightingAltitude", "angleUnit", e.altitude);
  __fxContour(d, "transferSpec", e.contour);
  d.putBoolean(k("antialiasGloss"), e.antiAlias);
  __fxBlendMode(d, "highlightMode", e.highlight.blendMode);
  __fxColor(d, "highlightColor", e.highlight.color);
  __fxUnit(d, "highlightOpacity", "percentUnit", e.highlight.opacity);
  __fxBlendMode(d, "shadowMode", e.shadow.blendMode);
  __fxColor(d, "shadowColor", e.shadow.color);
  __fxUnit(d, "shadowOpacity", "percentUnit", e.shadow.opacity);
  d.putBoolean(k("useShape"), false);
  d.putBoolean(k("useTexture"), false);
  return d;
}

function __fxSatin(e) {
  var d = __fxBase(e), k = stringIDToTypeID;
  __fxColor(d, "color", e.color);
  d.putBoolean(k("antiAlias"), e.antiAlias);
  d.putBoolean(k("invert"), e.invert);
  __fxUnit(d, "localLightingAngle", "angleUnit", e.angle);
  __fxUnit(d, "distance", "pixelsUnit", e.distance);
  __fxUnit(d, "blur", "pixelsUnit", e.size);
  __fxContour(d, "mappingShape", e.contour);
  return d;
}

function __fxOverlay(e) {
  var d = __fxBase(e);
  __fxColor(d, "color", e.color);
  return d;
}

function __fxGradientOverlay(e) {
  var d = __fxBase(e);
  __fxGradient(d, e);
  return d;
}

function __fxStroke(e) {
  var d = __fxBase(e), k = stringIDToTypeID;
  __fxEnum(d, "style", "frameStyle", __FX_STROKE_POSITIONS[e.position]);
  __fxUnit(d, "size", "pixelsUnit", e.size);
  d.putBoolean(k("overprint"), false);
  if (e.fill.type === "color") {
    __fxEnum(d, "paintType", "frameFill", "solidColor");
    __fxColor(d, "color", e.fill.color);
  } else {
    __fxEnum(d, "paintType", "frameFill", "gradientFill");
    __fxGradient(d, e.fill);
  }
  return d;
}

var __FX_WRITERS = {
  dropShadow: function (e) { var d = __fxShadow(e, e.spread); d.putBoolean(stringIDToTypeID("layerConceals"), e.layerKnocksOut); return d; },
  innerShadow: function (e) { return __fxShadow(e, e.choke); },
  outerGlow: function (e) { return __fxGlow(e, e.spread); },
  innerGlow: function (e) { var d = __fxGlow(e, e.choke); __fxEnum(d, "innerGlowSource", "innerGlowSourceType", __FX_GLOW_SOURCES[e.source]); return d; },
  bevel: __fxBevel, satin: __fxSatin, colorOverlay: __fxOverlay, gradientOverlay: __fxGradientOverlay, stroke: __fxStroke
};

// The layerEffects descriptor of the resolved effects, or null for none. A kind Photoshop stacks goes in as its one
// object when there is one, as its list when there are several.
function __fxStyle(effects) {
  var k = stringIDToTypeID, style = new ActionDescriptor(), any = false;
  __fxUnit(style, "scale", "percentUnit", 100);
  for (var i = 0; i < __FX_KINDS.length; i++) {
    var name = __FX_KINDS[i][0], cls = __FX_KINDS[i][1], multi = __FX_KINDS[i][2], value = effects[name];
    if (value === undefined || value === null) continue;
    any = true;
    if (multi === null) {
      style.putObject(k(cls), k(cls), __FX_WRITERS[name](value));
    } else if (value.length === 1) {
      style.putObject(k(cls), k(cls), __FX_WRITERS[name](value[0]));
    } else {
      var list = new ActionList();
      for (var j = 0; j < value.length; j++) list.putObject(k(cls), __FX_WRITERS[name](value[j]));
      style.putList(k(multi), list);
    }
  }
  return any ? style : null;
}

// `set` of the target layer's layerEffects, or of the document's globalAngle.
function __fxSet(property, container, cls, to) {
  var k = stringIDToTypeID, desc = new ActionDescriptor(), ref = new ActionReference();
  ref.putProperty(k("property"), k(property));
  ref.putEnumerated(k(container), k("ordinal"), k("targetEnum"));
  desc.putReference(k("null"), ref);
  desc.putObject(k("to"), k(cls), to);
  executeAction(k("set"), desc, DialogModes.NO);
}

function __fxHasStyle(doc, id) {
  try { return __amLayer("id", id, doc.id, "layerEffects").hasKey(stringIDToTypeID("layerEffects")); } catch (e) { return false; }
}

function run(p) {
  var doc = __activate(__doc(p.documentId)), e = p.edit;
  var layer = __domLayer(doc, e.layerId);
  if (layer.typename === "ArtLayer" && layer.isBackgroundLayer) {
    __fail("BAD_REQUEST", "Layer " + e.layerId + " is the Background layer, which has no effects: make it a layer first", { layerId: e.layerId, field: "effects" });
  }
  __unlocked(doc, layer);
  // Built before the state starts: a setting the script cannot write fails with nothing changed.
  var style = __fxStyle(e.effects), light = null;
  if (e.globalLight) {
    light = new ActionDescriptor();
    __fxUnit(light, "globalLightingAngle", "angleUnit", e.globalLight.angle);
    if (e.globalLight.altitude !== undefined && e.globalLight.altitude !== null) __fxUnit(light, "globalAltitude", "angleUnit", e.globalLight.altitude);
  }
  return __inHistory(doc, p.history, function () {
    __selectLayer(e.layerId);
    // Clearing a style may reset the layer's blending options with it: the fill opacity is put back.
    var fill = layer.typename === "ArtLayer" ? layer.fillOpacity : null;
    if (light !== null) __fxSet("globalAngle", "document", "globalAngle", light);
    if (__fxHasStyle(doc, e.layerId)) {
      var clear = new ActionDescriptor(), ref = new ActionReference();
      ref.putEnumerated(charIDToTypeID("Lyr "), charIDToTypeID("Ordn"), charIDToTypeID("Trgt"));
      clear.putReference(charIDToTypeID("null"), ref);
      executeAction(charIDToTypeID("dlfx"), clear, DialogModes.NO);
    }
    if (style !== null) __fxSet("layerEffects", "layer", "layerEffects", style);
    if (fill !== null && layer.fillOpacity !== fill) layer.fillOpacity = fill;
    return {};
  });
}
