// @bridge-op edit.comps
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// The layer comp edits (Document.layerComps), each one history state named p.history. A comp is named by its
// 1-based place in the Layer Comps panel (document.comps.jsx). LayerComps.add(name, comment, appearance, position,
// visibility) records the layers as they are now; LayerComp.apply() sets them as the comp recorded them;
// LayerComp.recapture() records them again; LayerComp.remove() deletes the comp. Answers {compId?}.

function __comp(doc, id) {
  var comps = doc.layerComps;
  if (id >= 1 && id <= comps.length && Math.floor(id) === id) return comps[id - 1];
  __fail("NOT_FOUND", "Document " + doc.id + " has no layer comp with id " + id, { documentId: doc.id, id: id });
}

function run(p) {
  var doc = __activate(__doc(p.documentId)), e = p.edit;
  if (e.op === "layerComp:create") {
    var c = e.captures;
    return __inHistory(doc, p.history, function () {
      doc.layerComps.add(e.name, e.comment === null ? "" : e.comment, c.appearance, c.position, c.visibility);
      // The bridge refuses a name already taken, so the new comp is the one with this name.
      var comps = doc.layerComps;
      for (var i = comps.length - 1; i >= 0; i--) if (comps[i].name === e.name) return { compId: i + 1 };
      __fail("JSX_FAILED", "The new layer comp \"" + e.name + "\" is not in the Layer Comps panel", { name: e.name });
    });
  }
  var comp = __comp(doc, e.compId);
  if (e.op === "layerComp:apply") return __inHistory(doc, p.history, function () { comp.apply(); return {}; });
  if (e.op === "layerComp:delete") return __inHistory(doc, p.history, function () { comp.remove(); return {}; });
  if (e.op !== "layerComp:update") __fail("BAD_REQUEST", "edit.comps does not make " + e.op, { op: e.op });
  return __inHistory(doc, p.history, function () {
    if (comp.name !== e.name) comp.name = e.name;
    var comment = e.comment === null ? "" : e.comment;
    if ((comp.comment || "") !== comment) comp.comment = comment;
    comp.visibility = e.captures.visibility;
    comp.position = e.captures.position;
    comp.appearance = e.captures.appearance;
    // Recaptured after the flags change: a comp records what it captures.
    if (e.recapture) comp.recapture();
    return {};
  });
}
