// @bridge-op edit.selection
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// The selection edits of the vocabulary, each one history state named p.history. Select > All / Deselect /
// Inverse and Select > Modify through the DOM's Selection (selectAll, deselect, invert, expand, contract, feather,
// smooth, selectBorder); a layer's transparency and the magic wand through the ActionManager, as Photoshop
// records them: `set` the selection to the layer's `transparencyEnum` channel (or `add` / `subtract` / `intersect`
// it with the selection, as Ctrl-clicking a thumbnail with modifiers does), and `set` (`addTo`, `subtractFrom`,
// `intersectWith`) the selection to a `paint` point with `tolerance`, `contiguous` and `merged` (Sample All
// Layers), sampling the active layer. Answers {}.

// Select > Modify limits (pixels): Expand and Contract take 1–500 at a time (repeated here for more), Smooth
// 1–500, Border 1–200, Feather up to 1000.
var __MODIFY_MAX = { smooth: 500, border: 200, feather: 1000 };

function __repeat(total, step) {
  for (var left = total; left > 0; left -= 500) step(UnitValue(Math.min(left, 500), "px"));
}

function __selectionRefOf() {
  var ref = new ActionReference();
  ref.putProperty(stringIDToTypeID("channel"), stringIDToTypeID("selection"));
  return ref;
}

// The layer's transparency combined with the selection by `mode`.
function __fromLayer(e) {
  var desc = new ActionDescriptor(), from = new ActionReference(), k = stringIDToTypeID;
  from.putEnumerated(k("channel"), k("channel"), k("transparencyEnum"));
  from.putIdentifier(k("layer"), e.layerId);
  if (e.mode === "replace") {
    desc.putReference(k("null"), __selectionRefOf());
    desc.putReference(k("to"), from);
    executeAction(k("set"), desc, DialogModes.NO);
    return;
  }
  desc.putReference(k("null"), from);
  var event = { add: "Add ", subtract: "Sbtr", intersect: "Intr" }[e.mode];
  var key = { add: "to", subtract: "from", intersect: "with" }[e.mode];
  desc.putReference(k(key), __selectionRefOf());
  executeAction(charIDToTypeID(event), desc, DialogModes.NO);
}

// The magic wand at e.point on the active layer (or the composite with e.sampleMerged).
function __wand(e) {
  var desc = new ActionDescriptor(), at = new ActionDescriptor(), k = stringIDToTypeID, px = k("pixelsUnit");
  desc.putReference(k("null"), __selectionRefOf());
  at.putUnitDouble(k("horizontal"), px, e.point.x);
  at.putUnitDouble(k("vertical"), px, e.point.y);
  desc.putObject(k("to"), k("paint"), at);
  desc.putInteger(k("tolerance"), e.tolerance);
  desc.putBoolean(k("antiAlias"), true);
  desc.putBoolean(k("contiguous"), e.contiguous);
  desc.putBoolean(k("merged"), e.sampleMerged);
  var event = { replace: "set", add: "addTo", subtract: "subtractFrom", intersect: "intersectWith" }[e.mode];
  executeAction(k(event), desc, DialogModes.NO);
}

function run(p) {
  var doc = __activate(__doc(p.documentId)), e = p.edit, s = doc.selection, had = __selectionRect(doc) !== null;
  if (e.op === "selection:modify") {
    if (!had) __fail("BAD_REQUEST", "Nothing is selected to " + e.how, { documentId: doc.id });
    var max = __MODIFY_MAX[e.how];
    if (max !== undefined && e.pixels > max) __fail("BAD_REQUEST", "Photoshop's " + e.how + " takes at most " + max + " px", { how: e.how, pixels: e.pixels, max: max });
  }
  if (e.op === "selection:fromLayer") __domLayer(doc, e.layerId);
  if (e.op === "selection:fromColor") {
    if (!e.point) __fail("BAD_REQUEST", "Photoshop selects by colour from a point (the magic wand)", { color: e.color });
    if (e.layerId !== undefined && e.layerId !== null) __domLayer(doc, e.layerId);
    else if (!e.sampleMerged) __fail("BAD_REQUEST", "Name the layer to sample, or sample the whole image", {});
  }
  return __inHistory(doc, p.history, function () {
    if (e.op === "selection:all") s.selectAll();
    else if (e.op === "selection:clear") s.deselect();
    // Select > Inverse of nothing is everything.
    else if (e.op === "selection:invert") { if (had) s.invert(); else s.selectAll(); }
    else if (e.op === "selection:modify") {
      if (e.how === "expand") __repeat(e.pixels, function (by) { s.expand(by); });
      else if (e.how === "contract") __repeat(e.pixels, function (by) { s.contract(by); });
      else if (e.how === "feather") s.feather(UnitValue(e.pixels, "px"));
      else if (e.how === "smooth") s.smooth(e.pixels);
      else s.selectBorder(UnitValue(e.pixels, "px"));
    } else if (e.op === "selection:fromLayer") __fromLayer(e);
    else if (e.op === "selection:fromColor") {
      if (e.layerId !== undefined && e.layerId !== null) __selectLayer(e.layerId);
      __wand(e);
    } else __fail("BAD_REQUEST", "edit.selection does not make " + e.op, { op: e.op });
    return {};
  });
}
