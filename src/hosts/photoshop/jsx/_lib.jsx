// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// Shared ExtendScript prelude of every bridge operation (ES3: no JSON object, no Array.prototype.map).
// The bridge sends `var params = <JSON literal>;` + the declarations of this prelude, `_tree.jsx` and the other
// shared files that the operation reaches + one operation file + `__bridgeMain();`, so each script Photoshop runs is
// self-contained (nothing says globals survive between calls).
// Failures come back as data in the envelope, never as dialogs or error frames, which carry no code the bridge
// could act on. Notes (`__note`) ride along in the envelope for the bridge's log: what a script fell back on.

function __json(v) {
  var t = typeof v, i, out, k;
  if (v === null || v === undefined || t === "function") return "null";
  if (t === "number") return isFinite(v) ? String(v) : "null";
  if (t === "boolean") return v ? "true" : "false";
  if (t === "string") {
    out = "\"";
    for (i = 0; i < v.length; i++) {
      var c = v.charCodeAt(i), ch = v.charAt(i);
      if (ch === "\"" || ch === "\\") out += "\\" + ch;
      else if (c < 32 || c === 0x2028 || c === 0x2029) out += "\\u" + ("0000" + c.toString(16)).slice(-4);
      else out += ch;
    }
    return out + "\"";
  }
  if (v instanceof Array) {
    out = [];
    for (i = 0; i < v.length; i++) out.push(__json(v[i]));
    return "[" + out.join(",") + "]";
  }
  out = [];
  for (k in v) if (v.hasOwnProperty(k) && v[k] !== undefined) out.push(__json(k) + ":" + __json(v[k]));
  return "{" + out.join(",") + "}";
}

var __notes = [];
function __note(text) {
  for (var i = 0; i < __notes.length; i++) if (__notes[i] === text) return;
  __notes.push(text);
}

function BridgeFail(code, message, details) { this.code = code; this.message = message; this.details = details; }
function __fail(code, message, details) { throw new BridgeFail(code, message, details || {}); }

function __px(u) { return typeof u === "number" ? u : u.as("px"); }

function __doc(id) {
  if (app.documents.length === 0) __fail("NO_DOCUMENT", "No document is open in Photoshop");
  if (id === undefined || id === null) return app.activeDocument;
  for (var i = 0; i < app.documents.length; i++) if (app.documents[i].id === id) return app.documents[i];
  __fail("DOCUMENT_NOT_FOUND", "No open document with id " + id, { documentId: id });
}

function __activate(doc) { if (app.activeDocument !== doc) app.activeDocument = doc; return doc; }

// The document is named by id, not made active: switching documents fires currentDocumentChanged, which the bridge
// itself listens to, so a read must not switch.
function __activeIds(doc) {
  var ids = [];
  try {
    var ref = new ActionReference();
    ref.putProperty(stringIDToTypeID("property"), stringIDToTypeID("targetLayersIDs"));
    ref.putIdentifier(charIDToTypeID("Dcmn"), doc.id);
    var list = executeActionGet(ref).getList(stringIDToTypeID("targetLayersIDs"));
    for (var i = 0; i < list.count; i++) ids.push(list.getReference(i).getIdentifier());
  } catch (e) {
    try { ids.push(doc.activeLayer.id); } catch (e2) {}
  }
  return ids;
}

function __docInfo(doc) {
  var info = {
    id: doc.id, name: doc.name, width: Math.round(__px(doc.width)), height: Math.round(__px(doc.height)),
    resolution: doc.resolution, colorMode: String(doc.mode).replace("DocumentMode.", "").toLowerCase(),
    isDirty: !doc.saved, activeLayerIds: __activeIds(doc)
  };
  try { info.filePath = doc.fullName.fsName; } catch (e) {}
  return info;
}

function __selectionRect(doc) {
  try {
    var b = doc.selection.bounds;
    var x = __px(b[0]), y = __px(b[1]);
    return { x: x, y: y, width: __px(b[2]) - x, height: __px(b[3]) - y };
  } catch (e) { return null; }
}

// Makes the layer with this id the only active one without showing it when hidden (setting doc.activeLayer would).
function __selectLayer(id) {
  var desc = new ActionDescriptor(), ref = new ActionReference();
  ref.putIdentifier(charIDToTypeID("Lyr "), id);
  desc.putReference(charIDToTypeID("null"), ref);
  desc.putBoolean(charIDToTypeID("MkVs"), false);
  executeAction(charIDToTypeID("slct"), desc, DialogModes.NO);
}

// Opens an image the bridge wrote (path) and copies its layer into `doc`, directly above `above` (in its group) or at
// the top of the document when it is null, with the image's top-left at x, y; `doc` is the active document again
// after. Answers the new layer.
function __copyImageIn(doc, path, above, x, y) {
  var src = app.open(new File(path)), from;
  try {
    // A layer's bounds skip transparent margins: remember where its pixels start inside the image.
    from = src.activeLayer.bounds;
    src.activeLayer.duplicate(doc, ElementPlacement.PLACEATBEGINNING);
  } finally {
    src.close(SaveOptions.DONOTSAVECHANGES);
  }
  app.activeDocument = doc;
  var layer = doc.layers[0];
  if (above) layer.move(above, ElementPlacement.PLACEBEFORE);
  var b = layer.bounds;
  layer.translate(x + __px(from[0]) - __px(b[0]), y + __px(from[1]) - __px(b[1]));
  return layer;
}

// Ruler units are the user's preference (inches on a fresh install): plain numbers given to Photoshop and lengths
// read back are in them, so every operation runs in pixels and puts the user's setting back.
function __bridgeMain() {
  var saved = app.displayDialogs, units = app.preferences.rulerUnits;
  app.displayDialogs = DialogModes.NO;
  app.preferences.rulerUnits = Units.PIXELS;
  try {
    var result = __json(run(params));
    return "{\"ok\":true,\"result\":" + result + (__notes.length ? ",\"notes\":" + __json(__notes) : "") + "}";
  } catch (e) {
    if (e instanceof BridgeFail) return "{\"ok\":false,\"error\":" + __json({ code: e.code, message: e.message, details: e.details }) + "}";
    return "{\"ok\":false,\"error\":" + __json({ code: "JSX_FAILED", message: String(e), details: { line: e.line || 0 } }) + "}";
  } finally {
    app.displayDialogs = saved;
    app.preferences.rulerUnits = units;
  }
}
