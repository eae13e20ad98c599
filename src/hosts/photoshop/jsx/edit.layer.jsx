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

// ---- Fill and adjustment layers: `make` and `set` of their contents (built in _content.jsx) ----------------------
// Layer Content Options (and Layer > Change Layer Content) is `set` of the target content or adjustment layer `to`
// the content.

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
  var edit = function () {
    if (e.op === "layer:create" && (e.kind === "fill" || e.kind === "adjustment")) return __createContent(doc, e);
    if (!ops[e.op]) __fail("BAD_REQUEST", "edit.layer does not make " + e.op, { op: e.op });
    return ops[e.op](doc, e);
  };
  // A pattern fill's image (p.path) becomes a pattern preset first, deleted again after (_content.jsx).
  if (e.fill && e.fill.type === "pattern") return __withPattern(doc, p.path, e.fill.preset, edit);
  return edit();
}
