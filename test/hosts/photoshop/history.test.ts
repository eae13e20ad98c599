import { describe, expect, it } from "vitest";
import type { HostLayer } from "../../../src/protocol/index.js";
import { HISTORY_STATES } from "../../fakes/photoshop/extendscript/history-panel.js";
import { bridgeOn, startFake } from "./_setup.js";

/*
 * Photoshop's history through the bridge and the fake Photoshop, whose History panel follows the Photoshop
 * JavaScript Reference (Document.historyStates, Document.activeHistoryState, HistoryState.snapshot: see
 * test/fakes/photoshop/extendscript/history-panel.ts): each edit one state named after its method, undo, redo and
 * go by setting the active state, checked on the calls the history script made and on the tree read back.
 */

const flat = (layers: readonly HostLayer[]): HostLayer[] => layers.flatMap((l) => [l, ...flat(l.children ?? [])]);

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
    // The document read, then one history script, which selected the state the first edit left (the History panel's
    // second state).
    const runs = fake.runs.slice(ran).filter((r) => r.op !== "document.get");
    expect(runs.map((r) => r.op)).toEqual(["history"]);
    expect(runs[0]!.calls).toEqual(["activeHistoryState = layer:update"]);
    expect(runs[0]!.history).toEqual([]);
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

  it(`is bounded by Photoshop's own history (${HISTORY_STATES} states), and refuses atomic batches`, async () => {
    const fake = await startFake();
    const client = await (await bridgeOn(fake)).connect();
    for (let i = 0; i < HISTORY_STATES + 5; i++) await client.call(i % 2 === 0 ? "selection:all" : "selection:clear");
    // The panel dropped its oldest states: the first it keeps is step 0.
    expect(await client.call("history:list")).toMatchObject({ current: HISTORY_STATES - 1, length: HISTORY_STATES - 1 });
    const atomic = await client.send("batch", { atomic: true, requests: [{ method: "selection:all" }] });
    expect(atomic.error).toMatchObject({ code: "NOT_SUPPORTED", details: { editor: "photoshop", capability: "history" } });
  });
});
