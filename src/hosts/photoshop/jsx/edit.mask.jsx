// @bridge-op edit.mask
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// The layer mask edits, through the ActionManager on the layer made the active one (without showing it): Layer >
// Layer Mask > Reveal All / Hide All / Reveal Selection (`make` a `channel` at the `mask` channel `using`
// revealAll / hideAll / revealSelection), Delete (`delete` the mask channel) and Apply (`delete` it with
// `apply: true`), and the Properties panel's mask settings (`set` the layer's userMaskEnabled, userMaskLinked,
// userMaskDensity in percent, userMaskFeather in pixels). Each is one history state named p.history. Answers {}.
var __MASK_FROM = { revealAll: "revealAll", hideAll: "hideAll", selection: "revealSelection" };

function __hasMask(doc, id) {
  try { return __amLayer("id", id, doc.id, "hasUserMask").getBoolean(stringIDToTypeID("hasUserMask")) === true; } catch (e) { return false; }
}

function __maskRef() {
  var ref = new ActionReference(), k = stringIDToTypeID;
  ref.putEnumerated(k("channel"), k("channel"), k("mask"));
  return ref;
}

function run(p) {
  var doc = __activate(__doc(p.documentId)), e = p.edit, k = stringIDToTypeID;
  var layer = __domLayer(doc, e.layerId), has = __hasMask(doc, e.layerId);
  if (e.op === "layer:addMask") {
    if (layer.typename === "ArtLayer" && layer.isBackgroundLayer) __fail("BAD_REQUEST", "The Background layer cannot have a mask", { layerId: e.layerId });
    if (has) __fail("BAD_REQUEST", "Layer " + e.layerId + " already has a mask", { layerId: e.layerId });
    if (e.from === "selection" && __selectionRect(doc) === null) __fail("BAD_REQUEST", "Nothing is selected to make the mask from", { from: e.from });
  } else if (!has) {
    __fail("BAD_REQUEST", "Layer " + e.layerId + " has no mask", { layerId: e.layerId });
  }
  if (e.op === "layer:applyMask") __unlocked(doc, layer);
  return __inHistory(doc, p.history, function () {
    __selectLayer(e.layerId);
    var desc = new ActionDescriptor();
    if (e.op === "layer:addMask") {
      desc.putClass(k("new"), k("channel"));
      desc.putReference(k("at"), __maskRef());
      desc.putEnumerated(k("using"), k("userMaskEnabled"), k(__MASK_FROM[e.from]));
      executeAction(k("make"), desc, DialogModes.NO);
    } else if (e.op === "layer:deleteMask" || e.op === "layer:applyMask") {
      desc.putReference(k("null"), __maskRef());
      if (e.op === "layer:applyMask") desc.putBoolean(k("apply"), true);
      executeAction(k("delete"), desc, DialogModes.NO);
    } else {
      var ref = new ActionReference(), to = new ActionDescriptor();
      ref.putEnumerated(k("layer"), k("ordinal"), k("targetEnum"));
      desc.putReference(k("null"), ref);
      if (e.enabled !== undefined) to.putBoolean(k("userMaskEnabled"), e.enabled);
      if (e.linked !== undefined) to.putBoolean(k("userMaskLinked"), e.linked);
      if (e.density !== undefined) to.putUnitDouble(k("userMaskDensity"), k("percentUnit"), e.density);
      if (e.feather !== undefined) to.putUnitDouble(k("userMaskFeather"), k("pixelsUnit"), e.feather);
      desc.putObject(k("to"), k("layer"), to);
      executeAction(k("set"), desc, DialogModes.NO);
    }
    return {};
  });
}
