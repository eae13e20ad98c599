import { describe, expect } from "vitest";
import type { HostLayer } from "../../src/protocol/index.js";
import { itFor } from "./_editors.js";
import { EDIT_MATRIX, editSession, expectResult, flatten, type EditSession } from "./_edits.js";
import type { Outcome } from "./_transports.js";

/** What an export of the active document answers: its data URI is compared byte for byte. */
async function exportUri(s: EditSession): Promise<string> {
  return (expectResult("image:exportDocument", await s.call("image:exportDocument", { format: "png" })) as { data: string }).data;
}

/** The layer tree as names, kinds, visibility and opacity, top-most first: what the fake Photoshop models too. */
async function treeOf(s: EditSession): Promise<unknown> {
  const layers = flatten(expectResult("document:layers", await s.call("document:layers")) as HostLayer[]);
  return layers.map((l) => ({ id: l.id, name: l.name, kind: l.kind, visible: l.visible, opacity: l.opacity, rect: l.rect }));
}

type Position = { documentId: number; current: number; length: number; revision: number };

/** Ten edits of different kinds (layers, masks, selections, the whole document) on the sample document. */
async function tenEdits(s: EditSession): Promise<Array<[string, Record<string, unknown>]>> {
  const doc = await s.current();
  const subject = await s.layer("Subject");
  const label = await s.layer("Label");
  const shadow = await s.layer("Shadow");
  return [
    ["layer:fill", { layerId: subject.id, color: "#ff0000", opacity: 50 }],
    ["layer:update", { layerId: label.id, opacity: 40, blendMode: "multiply" }],
    ["selection:fromLayer", { layerId: label.id }],
    ["layer:clear", { layerId: shadow.id }],
    ["selection:clear", {}],
    ["layer:create", { name: "Wash", fillColor: "#00ff0080" }],
    ["layer:move", { layerId: subject.id, to: "top" }],
    ["layer:transform", { layerId: label.id, dx: 10, dy: 5 }],
    ["document:flip", { direction: "horizontal" }],
    ["document:resizeCanvas", { width: doc.width + 20, height: doc.height + 10 }],
  ];
}

describe.each(EDIT_MATRIX)("history over $label", ({ editor, transport: { make } }) => {
  const it = itFor(editor);
  let s: EditSession;

  /** Whether the editor keeps a history; when not, checks the honest `NOT_SUPPORTED`. */
  const hasHistory = async (): Promise<boolean> => {
    const info = await (await s.harness.connect()).send("getServerInfo");
    const summary = ((info.result as { editors?: Array<{ kind: string; history?: boolean }> }).editors ?? []).find((e) => e.kind === editor.name);
    if (summary?.history === true) return true;
    const outcome = await s.call("history:undo");
    expect(outcome.error?.code).toBe("NOT_SUPPORTED");
    expect(outcome.error?.details).toMatchObject({ editor: editor.name, capability: "history" });
    // An atomic batch needs a history too: refused whole, nothing run.
    const { revision } = await s.current();
    const atomic = await batchOutcome(s, { atomic: true, requests: [{ method: "selection:all" }] });
    expect(atomic.error?.code).toBe("NOT_SUPPORTED");
    expect(atomic.error?.details).toMatchObject({ editor: editor.name, capability: "history" });
    expect((await s.current()).revision).toBe(revision);
    return false;
  };

  it("ten edits undone one by one give the export from before them, redone the edited one, and history:go a middle step's", async () => {
    s = await editSession(editor, make);
    if (!(await hasHistory())) return;
    const edits = await tenEdits(s);
    const before = await s.current();
    const exports = [editor.paints ? await exportUri(s) : ""];
    const trees = [await treeOf(s)];
    for (const [method, params] of edits) {
      expectResult(method as never, await s.call(method as never, params));
      if (editor.paints) exports.push(await exportUri(s));
      trees.push(await treeOf(s));
    }
    const listed = expectResult("history:list", await s.call("history:list")) as { steps: Array<{ index: number; method: string; name: string }>; current: number; length: number };
    expect(listed.current).toBe(listed.length);
    expect(listed.steps.slice(-10).map((step) => step.method)).toEqual(edits.map(([method]) => method));
    // Reads made no step.
    expect(listed.length).toBe(10);
    const edited = await s.current();

    let revision = edited.revision!;
    for (let i = 0; i < 10; i++) {
      const moved = expectResult("history:undo", await s.call("history:undo")) as Position;
      expect(moved).toMatchObject({ current: 9 - i, length: 10 });
      expect(moved.revision).toBeGreaterThan(revision);
      revision = moved.revision;
    }
    if (editor.paints) expect(await exportUri(s)).toBe(exports[0]);
    expect(await treeOf(s)).toEqual(trees[0]);
    expect(await s.current()).toMatchObject({ width: before.width, height: before.height });
    // Nothing is left to undo.
    const nothing = await s.call("history:undo");
    expect(nothing.error?.code).toBe("BAD_REQUEST");

    for (let i = 0; i < 10; i++) expectResult("history:redo", await s.call("history:redo"));
    if (editor.paints) expect(await exportUri(s)).toBe(exports[10]);
    expect(await treeOf(s)).toEqual(trees[10]);

    const middle = expectResult("history:go", await s.call("history:go", { index: 4 })) as Position;
    expect(middle).toMatchObject({ current: 4, length: 10 });
    if (editor.paints) expect(await exportUri(s)).toBe(exports[4]);
    expect(await treeOf(s)).toEqual(trees[4]);
    // Several steps at once.
    expectResult("history:redo", await s.call("history:redo", { steps: 3 }));
    if (editor.paints) expect(await exportUri(s)).toBe(exports[7]);
    expectResult("history:undo", await s.call("history:undo", { steps: 7 }));
    if (editor.paints) expect(await exportUri(s)).toBe(exports[0]);
    // An edit after an undo ends what can be redone.
    const label = await s.layer("Label");
    expectResult("layer:update", await s.call("layer:update", { layerId: label.id, visible: false }));
    expect(expectResult("history:list", await s.call("history:list"))).toMatchObject({ current: 1, length: 1 });
    expect((await s.call("history:redo")).error?.code).toBe("BAD_REQUEST");
  });

  it("an atomic batch whose fourth entry fails leaves the document as it was, rolledBack: 3", async () => {
    s = await editSession(editor, make);
    if (!(await hasHistory())) return;
    const label = await s.layer("Label");
    const subject = await s.layer("Subject");
    const before = await s.current();
    const exported = editor.paints ? await exportUri(s) : "";
    const tree = await treeOf(s);
    const requests = [
      { method: "layer:fill", params: { layerId: subject.id, color: "#0000ff" } },
      { method: "layer:update", params: { layerId: label.id, name: "Renamed", opacity: 10 } },
      { method: "document:layers" },
      { method: "layer:delete", params: { layerId: label.id } },
      { method: "layer:update", params: { layerId: 99_999, visible: false } },
      { method: "layer:update", params: { layerId: subject.id, visible: false } },
    ];
    const outcomes = (await batch(s, { requests, atomic: true })) as Array<{ ok: boolean; error?: { code: string; details?: Record<string, unknown> } }>;
    expect(outcomes).toHaveLength(5);
    expect(outcomes.slice(0, 4).map((o) => o.error?.code)).toEqual(["ROLLED_BACK", "ROLLED_BACK", "ROLLED_BACK", "ROLLED_BACK"]);
    expect(outcomes[4]!.error).toMatchObject({ code: "LAYER_NOT_FOUND", details: { rolledBack: 3 } });
    expect((await s.current()).revision).toBe(before.revision);
    if (editor.paints) expect(await exportUri(s)).toBe(exported);
    expect(await treeOf(s)).toEqual(tree);
    expect(expectResult("history:list", await s.call("history:list"))).toMatchObject({ current: 0, length: 0 });

    // One that succeeds is one step, named batch.
    const ok = (await batch(s, { requests: requests.slice(0, 2), atomic: true })) as Array<{ ok: boolean }>;
    expect(ok.map((o) => o.ok)).toEqual([true, true]);
    const listed = expectResult("history:list", await s.call("history:list")) as { steps: Array<{ method: string }> };
    expect(listed.steps.map((step) => step.method)).toEqual(["batch"]);
    expectResult("history:undo", await s.call("history:undo"));
    expect(await treeOf(s)).toEqual(tree);
  });

  it("one client's undo undoes another's edit, and both are sent history:changed", async () => {
    s = await editSession(editor, make);
    if (!(await hasHistory())) return;
    const [first, second] = [await s.harness.connect(), await s.harness.connect()];
    for (const client of [first, second]) expect((await client.send("event:subscribe", { type: "history:changed" })).ok).toBe(true);
    const label = await s.layer("Label");
    const edited = await first.send("layer:update", { layerId: label.id, visible: false });
    expect(edited.ok).toBe(true);
    const { id } = await s.current();
    // The embedded editor announces every step; Photoshop's states are read back only when the history moves.
    if (editor.name === "embedded") for (const client of [first, second]) await client.next((f) => f.type === "history:changed" && (f.data as { current: number }).current === 1);
    const { current } = expectResult("history:list", await s.call("history:list")) as Position;
    // The second client undoes over the row's transport what the first did.
    const undone = expectResult("history:undo", await s.call("history:undo")) as Position;
    expect(undone).toMatchObject({ documentId: id, current: current - 1 });
    expect((await s.layer("Label")).visible).toBe(true);
    for (const client of [first, second]) {
      const event = await client.next((f) => f.type === "history:changed" && (f.data as { current: number }).current === current - 1);
      expect(event.data).toEqual({ documentId: id, current: current - 1, length: undone.length });
    }
    const listed = expectResult("history:list", await s.call("history:list")) as { steps: Array<{ method: string; clientIdPrefix: string | null }> };
    expect(listed.steps[current - 1]!.method).toBe("layer:update");
    // Photoshop's states do not say who made them; the embedded editor's steps do.
    if (editor.name === "embedded") expect(first.hello.clientId.startsWith(listed.steps[current - 1]!.clientIdPrefix!)).toBe(true);
  });

  it("another client's edit sent while an atomic batch runs lands after the whole batch", async () => {
    s = await editSession(editor, make);
    if (!(await hasHistory())) return;
    const subject = await s.layer("Subject");
    const label = await s.layer("Label");
    const other = await s.harness.connect();
    expect((await other.send("event:subscribe", { type: "documentChanged" })).ok).toBe(true);
    const fills = Array.from({ length: 12 }, (_, i) => ({ method: "layer:fill", params: { layerId: subject.id, color: `#0000${(i * 16).toString(16).padStart(2, "0")}` } }));
    const running = batch(s, { requests: fills, atomic: true });
    // Sent once the batch's first edit is made, while the rest of it runs (or after it, on a fast machine).
    await other.next((f) => f.type === "documentChanged" && (f.data as { method?: string }).method === "layer:fill");
    const edit = other.send("layer:update", { layerId: label.id, opacity: 20 });
    const [outcomes, answered] = await Promise.all([running, edit]);
    expect((outcomes as Array<{ ok: boolean }>).every((o) => o.ok)).toBe(true);
    expect(answered.ok).toBe(true);
    const methods = other.events("documentChanged").map((f) => (f.data as { method?: string }).method);
    // Every fill of the batch, then the other client's edit: nothing of it between the batch's entries.
    expect(methods.slice(0, 13)).toEqual([...fills.map(() => "layer:fill"), "layer:update"]);
    const listed = expectResult("history:list", await s.call("history:list")) as { steps: Array<{ method: string }> };
    expect(listed.steps.map((step) => step.method)).toEqual(["batch", "layer:update"]);
  });

  it("an atomic batch addressing two documents is BAD_REQUEST before any entry runs", async () => {
    s = await editSession(editor, make);
    if (!(await hasHistory())) return;
    const { id, revision } = await s.current();
    const outcome = await batchOutcome(s, {
      atomic: true,
      requests: [
        { method: "selection:all", params: { documentId: id } },
        { method: "selection:all", params: { documentId: id + 1000 } },
      ],
    });
    expect(outcome.error?.code).toBe("BAD_REQUEST");
    expect((await s.current()).revision).toBe(revision);
  });
});

/** A batch over the session's transport: its outcomes. */
async function batch(s: EditSession, params: Record<string, unknown>): Promise<unknown[]> {
  const outcome = await batchOutcome(s, params);
  if (!outcome.ok) throw new Error(`batch failed: ${JSON.stringify(outcome.error)}`);
  return outcome.result as unknown[];
}

async function batchOutcome(s: EditSession, params: Record<string, unknown>): Promise<Outcome> {
  if (s.t.name === "ws") return s.call("batch" as never, params);
  const response = await s.harness.http("/batch", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(params) });
  const body = (await response.json()) as unknown;
  return response.status === 200 ? { ok: true, result: body } : { ok: false, error: body as Outcome["error"] };
}
