import { describe, expect, it } from "vitest";
import type { HostLayer } from "../../../src/protocol/index.js";
import { activeEntry, entries, HISTORY_STATES } from "../../fakes/photoshop/extendscript/history-panel.js";
import type { FakePhotoshop } from "../../fakes/photoshop/server.js";
import { bridgeOn, startFake } from "./_setup.js";

/*
 * Photoshop's history through the bridge and the fake Photoshop, whose History panel follows the Photoshop
 * JavaScript Reference (Document.historyStates, Document.activeHistoryState, HistoryState.snapshot: see
 * test/fakes/photoshop/extendscript/history-panel.ts): each edit one state named after its method, undo, redo and
 * go by setting the active state, checked on the calls the history script made and on the tree read back.
 */

const flat = (layers: readonly HostLayer[]): HostLayer[] => layers.flatMap((l) => [l, ...flat(l.children ?? [])]);

/** The History panel of the fake's active document as a person sees it: its states' names, and which is active. */
function panel(fake: FakePhotoshop): { names: string[]; active: number } {
  const doc = fake.model.docs.find((d) => d.id === fake.model.activeDoc)!;
  const states = entries(doc).filter((e) => !e.snapshot);
  return { names: states.map((e) => e.name), active: states.indexOf(activeEntry(doc)) };
}

describe("Photoshop's history", () => {
  it("undo, redo and go set activeHistoryState to the state the step left, and the tree reads back as that state", async () => {
    const fake = await startFake();
    const client = await (await bridgeOn(fake)).connect();
    const layers = async (): Promise<HostLayer[]> => flat(await client.call<HostLayer[]>("document:layers"));
    const [title, a] = [(await layers()).find((l) => l.name === "Title")!, (await layers()).find((l) => l.name === "A")!];
    const before = await layers();
    await client.call("layer:update", { layerId: title.id, visible: false });
    await client.call("layer:update", { layerId: a.id, name: "Renamed" });
    await client.call("selection:all");
    const after = await layers();
    expect(await client.call("history:list")).toMatchObject({
      current: 3,
      length: 3,
      dropped: 0,
      steps: [
        { index: 1, name: "layer:update", method: "layer:update", clientIdPrefix: null },
        { index: 2, name: "layer:update", method: "layer:update", clientIdPrefix: null },
        { index: 3, name: "selection:all", method: "selection:all", clientIdPrefix: null },
      ],
    });

    const ran = fake.runs.length;
    expect(await client.call("history:undo", { steps: 2 })).toMatchObject({ current: 1, length: 3 });
    // The document read, then the history read and moved: the second script selected the state the first edit left
    // (the History panel's second state), and made none.
    const runs = fake.runs.slice(ran).filter((r) => r.op !== "document.get");
    expect(runs.map((r) => [r.op, (r.params as { op: string }).op])).toEqual([
      ["history", "list"],
      ["history", "go"],
    ]);
    expect(runs.flatMap((r) => r.calls)).toEqual(["activeHistoryState = layer:update"]);
    expect(runs.flatMap((r) => r.history)).toEqual([]);
    const undone = await layers();
    expect(undone.find((l) => l.id === a.id)!.name).toBe("A");
    expect(undone.find((l) => l.id === title.id)!.visible).toBe(false);
    expect(await client.call("selection:getArea")).toBeNull();

    await client.call("history:go", { index: 0 });
    expect(fake.runs.at(-1)!.calls).toEqual(["activeHistoryState = Open"]);
    expect((await layers()).map((l) => [l.name, l.visible])).toEqual(before.map((l) => [l.name, l.visible]));
    expect(await client.call("history:redo", { steps: 3 })).toMatchObject({ current: 3 });
    expect((await layers()).map((l) => [l.name, l.visible])).toEqual(after.map((l) => [l.name, l.visible]));
    const refused = await client.send("history:redo");
    expect(refused.error).toMatchObject({ code: "BAD_REQUEST", details: { current: 3, length: 3 } });
  });

  it(`an atomic batch is one step over the states its entries made, undone and redone whole, and found again when Photoshop's bound (${HISTORY_STATES} states) drops the oldest`, async () => {
    const fake = await startFake();
    const client = await (await bridgeOn(fake)).connect();
    const layers = async (): Promise<HostLayer[]> => flat(await client.call<HostLayer[]>("document:layers"));
    const [title, a] = [(await layers()).find((l) => l.name === "Title")!, (await layers()).find((l) => l.name === "A")!];
    await client.call("selection:all");
    const before = await layers();
    const outcomes = await client.call<Array<{ ok: boolean }>>("batch", {
      atomic: true,
      requests: [
        { method: "layer:update", params: { layerId: title.id, visible: false } },
        { method: "document:layers" },
        { method: "layer:update", params: { layerId: a.id, name: "Renamed" } },
        { method: "selection:clear" },
      ],
    });
    expect(outcomes.map((o) => o.ok)).toEqual([true, true, true, true]);
    const after = await layers();
    // A person at Photoshop sees each entry's state; the bridge lists them as one step.
    expect(panel(fake).names).toEqual(["Open", "selection:all", "layer:update", "layer:update", "selection:clear"]);
    expect(await client.call("history:list")).toMatchObject({
      current: 2,
      length: 2,
      steps: [
        { index: 1, method: "selection:all" },
        { index: 2, name: "batch", method: "batch", clientIdPrefix: null },
      ],
    });
    expect(await client.call("history:undo")).toMatchObject({ current: 1, length: 2 });
    expect(fake.runs.at(-1)!.calls).toEqual(["activeHistoryState = selection:all"]);
    expect(panel(fake).active).toBe(1);
    expect((await layers()).map((l) => [l.name, l.visible])).toEqual(before.map((l) => [l.name, l.visible]));
    expect(await client.call("history:redo")).toMatchObject({ current: 2, length: 2 });
    expect(panel(fake).active).toBe(4);
    expect((await layers()).map((l) => [l.name, l.visible])).toEqual(after.map((l) => [l.name, l.visible]));

    // Edits after it, one more than Photoshop keeps: the panel dropped its oldest state ("Open"), the first it keeps is
    // step 0, and the batch is found again where it moved.
    const more = HISTORY_STATES - 4;
    for (let i = 0; i < more; i++) await client.call(i % 2 === 0 ? "selection:all" : "selection:clear");
    expect(panel(fake).names).toHaveLength(HISTORY_STATES);
    expect(panel(fake).names.slice(0, 4)).toEqual(["selection:all", "layer:update", "layer:update", "selection:clear"]);
    const listed = await client.call<{ steps: Array<{ method: string }>; current: number }>("history:list");
    expect(listed.steps[0]!.method).toBe("batch");
    expect(listed).toMatchObject({ current: more + 1, length: HISTORY_STATES - 3 });
    expect(await client.call("history:go", { index: 0 })).toMatchObject({ current: 0 });
    expect(panel(fake).active).toBe(0);
    expect(await client.call("history:go", { index: 1 })).toMatchObject({ current: 1 });
    expect(panel(fake).active).toBe(3);
    expect((await layers()).map((l) => [l.name, l.visible])).toEqual(after.map((l) => [l.name, l.visible]));
  });

  it("a batch whose states a person broke into is listed state by state", async () => {
    const fake = await startFake();
    const client = await (await bridgeOn(fake)).connect();
    const title = flat(await client.call<HostLayer[]>("document:layers")).find((l) => l.name === "Title")!;
    await client.call("batch", {
      atomic: true,
      requests: [{ method: "selection:all" }, { method: "layer:update", params: { layerId: title.id, opacity: 50 } }, { method: "selection:clear" }],
    });
    expect(await client.call("history:list")).toMatchObject({ current: 1, length: 1 });
    // A person clicks the batch's second state in the History panel and changes something.
    await client.call("jsx:run", { script: "var d = app.activeDocument; d.activeHistoryState = d.historyStates[3]; d.selection.selectAll(); 1" });
    expect(panel(fake).names).toEqual(["Open", "selection:all", "layer:update", "selection.selectAll()"]);
    expect(await client.call("history:list")).toMatchObject({
      current: 3,
      length: 3,
      steps: [{ method: "selection:all" }, { method: "layer:update" }, { name: "selection.selectAll()", method: "photoshop" }],
    });
  });

  it("a rolled-back batch goes back to the state before it; Photoshop keeps its states until the next change, the bridge lists none", async () => {
    const fake = await startFake();
    const client = await (await bridgeOn(fake)).connect();
    const title = flat(await client.call<HostLayer[]>("document:layers")).find((l) => l.name === "Title")!;
    await client.call("selection:all");
    const { revision } = await client.call<{ revision: number }>("document:current");
    const outcomes = await client.call<Array<{ ok: boolean; error?: { code: string; details?: unknown } }>>("batch", {
      atomic: true,
      requests: [
        { method: "layer:update", params: { layerId: title.id, opacity: 50 } },
        { method: "selection:clear" },
        { method: "layer:update", params: { layerId: 99_999, opacity: 50 } },
      ],
    });
    expect(outcomes.map((o) => o.error?.code)).toEqual(["ROLLED_BACK", "ROLLED_BACK", "LAYER_NOT_FOUND"]);
    expect(outcomes[2]!.error!.details).toMatchObject({ rolledBack: 2 });
    expect(panel(fake)).toEqual({ names: ["Open", "selection:all", "layer:update", "selection:clear"], active: 1 });
    expect(flat(await client.call<HostLayer[]>("document:layers")).find((l) => l.id === title.id)!.opacity).toBe(100);
    expect(await client.call("document:current")).toMatchObject({ revision });
    expect(await client.call("history:list")).toMatchObject({ current: 1, length: 1, steps: [{ method: "selection:all" }] });
    expect((await client.send("history:redo")).error).toMatchObject({ code: "BAD_REQUEST", details: { current: 1, length: 1 } });
    // The next change discards them.
    await client.call("selection:clear");
    expect(panel(fake).names).toEqual(["Open", "selection:all", "selection:clear"]);
    expect(await client.call("history:list")).toMatchObject({ current: 2, length: 2 });
  });
});
