// @bridge-op edit.document
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// The whole-document edits of the vocabulary through the DOM, each one history state named p.history:
// Document.resizeImage, resizeCanvas, crop, rotateCanvas, flipCanvas, flatten and trim. document:duplicate is
// Document.duplicate(name), which makes a new document (the copy's first state) and leaves the source's history
// alone. Answers {} or {documentId} of the copy.
var __RESAMPLE_METHODS = { nearest: "NEARESTNEIGHBOR", bilinear: "BILINEAR", bicubic: "BICUBIC" };

function __hasBackground(doc) {
  var layers = doc.layers, last = layers[layers.length - 1];
  return last.typename === "ArtLayer" && last.isBackgroundLayer;
}

// Runs `body` with the background colour set to `rgba` (what canvas edits paint a Background layer's new area
// with: Document.resizeCanvas and rotateCanvas use app.backgroundColor), and puts the user's colour back.
function __withBackgroundColor(rgba, body) {
  var saved = app.backgroundColor;
  app.backgroundColor = __solid(rgba);
  try { return body(); } finally { app.backgroundColor = saved; }
}

// resizeCanvas anchors the old canvas at one of nine points; the bridge's offsets are those points' offsets.
function __anchorOf(offset, grow, axis) {
  if (offset === 0) return 0;
  if (offset === grow) return 2;
  if (Math.abs(offset - grow / 2) <= 0.5) return 1;
  __fail("BAD_REQUEST", "Photoshop anchors a resized canvas at one of nine points: offset " + axis + " " + offset + " is none of them", { offset: offset, axis: axis });
}

var __ANCHORS = [["TOPLEFT", "TOPCENTER", "TOPRIGHT"], ["MIDDLELEFT", "MIDDLECENTER", "MIDDLERIGHT"], ["BOTTOMLEFT", "BOTTOMCENTER", "BOTTOMRIGHT"]];

function __canvas(doc, e) {
  var w = Math.round(__px(doc.width)), h = Math.round(__px(doc.height));
  var column = __anchorOf(e.offsetX, e.width - w, "x"), row = __anchorOf(e.offsetY, e.height - h, "y");
  var background = __hasBackground(doc);
  if (background && e.fillColor[3] !== 255) {
    __fail("BAD_REQUEST", "A Background layer cannot be transparent: its new canvas needs an opaque fillColor", { fillColor: e.fillColor });
  }
  var fill = background ? e.fillColor : [255, 255, 255, 255];
  return __inHistory(doc, p_history, function () {
    __withBackgroundColor(fill, function () {
      doc.resizeCanvas(UnitValue(e.width, "px"), UnitValue(e.height, "px"), AnchorPosition[__ANCHORS[row][column]]);
    });
    return {};
  });
}

// Nothing to trim when a visible Background layer is opaque all over, or when no layer has pixels (Image > Trim
// has nothing to keep then).
function __trimmable(doc) {
  if (__hasBackground(doc) && doc.layers[doc.layers.length - 1].visible) return false;
  var entries = __entries(doc);
  for (var i = 0; i < entries.length; i++) {
    var info = __infoOf(entries[i]);
    if (!entries[i].children && info.visible && info.rect.width > 0 && info.rect.height > 0) return true;
  }
  return false;
}

var p_history;
function run(p) {
  var doc = __activate(__doc(p.documentId)), e = p.edit;
  p_history = p.history;
  if (e.op === "document:duplicate") return { documentId: doc.duplicate(e.name, false).id };
  if (e.op === "document:resizeCanvas") return __canvas(doc, e);
  // Nothing to do makes no history state: trimming what has no transparent edge, turning by 0°.
  if ((e.op === "document:trim" && !__trimmable(doc)) || (e.op === "document:rotate" && e.angle === 0)) return {};
  return __inHistory(doc, p.history, function () {
    if (e.op === "document:resize") {
      doc.resizeImage(UnitValue(e.width, "px"), UnitValue(e.height, "px"), e.resolution, ResampleMethod[__RESAMPLE_METHODS[e.resample]]);
    } else if (e.op === "document:crop") {
      var r = e.rect;
      doc.crop([UnitValue(r.x, "px"), UnitValue(r.y, "px"), UnitValue(r.x + r.width, "px"), UnitValue(r.y + r.height, "px")]);
    } else if (e.op === "document:rotate") {
      // The canvas grows to hold the turned image; a Background layer's new corners are white.
      __withBackgroundColor([255, 255, 255, 255], function () { doc.rotateCanvas(e.angle); });
    } else if (e.op === "document:flip") {
      if (e.direction !== "vertical") doc.flipCanvas(Direction.HORIZONTAL);
      if (e.direction !== "horizontal") doc.flipCanvas(Direction.VERTICAL);
    } else if (e.op === "document:flatten") {
      doc.flatten();
    } else if (e.op === "document:trim") {
      doc.trim(TrimType.TRANSPARENT, true, true, true, true);
    } else {
      __fail("BAD_REQUEST", "edit.document does not make " + e.op, { op: e.op });
    }
    return {};
  });
}
