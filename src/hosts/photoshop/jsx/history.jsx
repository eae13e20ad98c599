// @bridge-op history
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// A document's history as the History panel holds it, and moves in it (Photoshop JavaScript Reference:
// Document.historyStates, "the history states collection in this document"; Document.activeHistoryState, "the
// selected HistoryState object", which a script sets to an earlier state to go back to it, as a click in the History
// panel does, the later states staying until the next change; HistoryState.snapshot, true for a snapshot, which is no
// step). The first state that is not a snapshot is the document as it was opened (or made): step 0. Photoshop keeps
// as many states as its "History States" preference says (50 by default), dropping the oldest.
//
// p.op: "list", "undo" (p.steps), "redo" (p.steps) or "go" (p.index). Answers {names, current}: the names of the
// steps after the first state, oldest first, and the index of the active one (0: the first state).
function run(p) {
  var doc = __activate(__doc(p.documentId));
  var states = doc.historyStates, active = doc.activeHistoryState, list = [], current = 0;
  for (var i = 0; i < states.length; i++) {
    var state = states[i];
    if (state.snapshot) continue;
    if (state == active) current = list.length;
    list.push(state);
  }
  var length = list.length - 1;
  if (p.op !== "list") {
    var target = p.op === "undo" ? current - p.steps : p.op === "redo" ? current + p.steps : p.index;
    if (target < 0 || target > length) {
      var details = { documentId: doc.id, current: current, length: length, dropped: 0 };
      if (p.op === "go") details.index = target; else details.steps = p.steps;
      __fail("BAD_REQUEST", p.op === "undo" ? "Only " + current + " steps of document " + doc.id + " can be undone, not " + p.steps
        : p.op === "redo" ? "Only " + (length - current) + " steps of document " + doc.id + " can be redone, not " + p.steps
        : "Document " + doc.id + " has steps 0 to " + length + ", not " + target, details);
    }
    doc.activeHistoryState = list[target];
    current = target;
  }
  var names = [];
  for (var k = 1; k < list.length; k++) names.push(String(list[k].name));
  return { names: names, current: current };
}
