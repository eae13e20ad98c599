// @bridge-op history
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// A document's history as the History panel holds it, and moves in it (Photoshop JavaScript Reference:
// Document.historyStates, "the history states collection in this document"; Document.activeHistoryState, "the
// selected HistoryState object", which a script sets to an earlier state to go back to it, as a click in the History
// panel does, the later states staying until the next change; HistoryState.snapshot, true for a snapshot, which is no
// step). The first state that is not a snapshot is the oldest Photoshop keeps: the document as opened (or made) until
// its "History States" preference (50 by default) makes Photoshop drop the oldest.
//
// p.op: "list", or "go" to the state p.index (an index into the states listed, 0 the first). Answers {names,
// current}: the names of every state that is not a snapshot, oldest first, and the index of the active one. The
// bridge maps its steps (an atomic batch is several states) onto these states (`history.ts`).
function run(p) {
  var doc = __activate(__doc(p.documentId));
  var states = doc.historyStates, active = doc.activeHistoryState, list = [], current = 0;
  for (var i = 0; i < states.length; i++) {
    var state = states[i];
    if (state.snapshot) continue;
    if (state == active) current = list.length;
    list.push(state);
  }
  if (p.op === "go") {
    if (p.index < 0 || p.index >= list.length) {
      __fail("BAD_REQUEST", "Document " + doc.id + " has history states 0 to " + (list.length - 1) + ", not " + p.index, { documentId: doc.id, index: p.index });
    }
    doc.activeHistoryState = list[p.index];
    current = p.index;
  }
  var names = [];
  for (var k = 0; k < list.length; k++) names.push(String(list[k].name));
  return { names: names, current: current };
}
