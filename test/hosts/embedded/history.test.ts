import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ContentBuilder, type PixelLayer } from "../../../src/hosts/embedded/document.js";
import { EmbeddedHistory } from "../../../src/hosts/embedded/history.js";
import { EditorMemory } from "../../../src/hosts/embedded/memory.js";
import { DocumentStore } from "../../../src/hosts/embedded/store.js";
import type { EditOp } from "../../../src/hosts/edits.js";
import type { HostAdapter, HostCallContext } from "../../../src/hosts/host.js";
import type { HistoryAnswer, HistoryRequest } from "../../../src/hosts/history.js";
import { isBridgeError } from "../../../src/protocol/index.js";
import { SAMPLE, connectedHost, exportDocument, WHITE } from "./helpers.js";

const call = (method?: string): HostCallContext => ({ signal: new AbortController().signal, caller: "client:abcd1234", method });
const history = (host: HostAdapter, request: HistoryRequest): Promise<HistoryAnswer> => host.history!(call(), request);
const fill = (layerId: number, color: [number, number, number, number]): EditOp => ({ op: "layer:fill", layerId, color, opacity: 100, blendMode: "normal" });

describe("the embedded editor's history", () => {
  it("bounds 200 full-canvas fills of a 4000×3000 document by its share of the memory budget, dropping the oldest and saying so", async () => {
    // The history alone, over a document whose one layer each "fill" replaces with a new full-canvas buffer, as
    // layer:fill does: a real fill's pixel loop would only make the test slow.
    const [width, height] = [4000, 3000];
    const layerBytes = width * height * 4;
    const store = new DocumentStore();
    const b = new ContentBuilder(width, height);
    const layer = b.pixel("Paint", { width, height, data: new Uint8ClampedArray(layerBytes) });
    const doc = store.add(b.build([layer], [layer.id]), { name: "Big" });
    const budgetBytes = 1024 * 1024 * 1024;
    const memory = new EditorMemory(budgetBytes, () => store.list());
    const maxBytes = budgetBytes / 4;
    const changes: number[] = [];
    const steps = new EmbeddedHistory({
      maxSteps: 1_000,
      maxBytes,
      documents: () => store.list(),
      changed: (changed) => changes.push(changed.revision++),
    });
    memory.attachHistory(steps);
    const events: Array<{ current: number; length: number }> = [];
    steps.events.subscribe((event) => events.push(event));
    let last: Uint8ClampedArray = layer.data;
    for (let i = 0; i < 200; i++) {
      await steps.record(doc, { method: "layer:fill", by: "client:abcd1234" }, async () => {
        // What layer:fill asks of the budget before it makes its buffer.
        memory.reserve("A filled layer", layerBytes).release();
        // A fresh buffer with its first pixel marked: filling every page would cost the test seconds per fill.
        last = new Uint8ClampedArray(layerBytes);
        last[0] = i % 255;
        (doc.layers[0] as PixelLayer).data = last;
      });
      expect(steps.bytes()).toBeLessThanOrEqual(maxBytes);
      expect(memory.use().usedBytes).toBeLessThanOrEqual(budgetBytes);
    }
    const listed = steps.run(doc, { op: "list", documentId: doc.id }, "test");
    // Each step holds the 48 MB buffer its fill replaced: five fit in 256 MiB.
    expect(listed.steps.length).toBe(Math.floor(maxBytes / layerBytes));
    expect(listed.dropped).toBe(200 - listed.steps.length);
    expect(listed.current).toBe(listed.steps.length);
    expect(memory.use().historyBytes).toBe(steps.bytes());
    expect(events.at(-1)).toEqual({ documentId: doc.id, current: listed.steps.length, length: listed.steps.length });
    // What is kept still undoes: the buffer before the last fill comes back, the same bytes, not a copy.
    steps.run(doc, { op: "undo", documentId: doc.id, steps: 1 }, "test");
    const undone = (doc.layers[0] as PixelLayer).data;
    expect(undone).not.toBe(last);
    expect(undone[0]).toBe(198 % 255);
    steps.run(doc, { op: "redo", documentId: doc.id, steps: 1 }, "test");
    expect((doc.layers[0] as PixelLayer).data).toBe(last);
  });

  it("is one step per edit named after it; reads add none; saving keeps it; closing the document ends it", async () => {
    const host = await connectedHost({ sample: true });
    const before = await exportDocument(host);
    await host.edit!(call("layer:fill"), { documentId: 1, edit: fill(SAMPLE.subject, [255, 0, 0, 255]) });
    await host.edit!(call("selection:all"), { documentId: 1, edit: { op: "selection:all" } });
    await host.getDocumentTree(call(), 1);
    await exportDocument(host);
    const dir = await mkdtemp(join(tmpdir(), "history-"));
    try {
      await host.saveDocument!(call("document:save"), { documentId: 1, path: join(dir, "saved.psd"), backup: false });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const listed = await history(host, { op: "list", documentId: 1 });
    expect(listed.steps).toEqual([
      { name: "layer:fill", method: "layer:fill", by: "client:abcd1234" },
      { name: "selection:all", method: "selection:all", by: "client:abcd1234" },
    ]);
    expect(listed).toMatchObject({ current: 2, dropped: 0 });
    const undone = await history(host, { op: "undo", documentId: 1, steps: 2 });
    expect(undone.current).toBe(0);
    expect(undone.revision).toBe(listed.revision + 1);
    expect(Buffer.from((await exportDocument(host)).bytes).equals(Buffer.from(before.bytes))).toBe(true);
    await host.closeDocument!(call("document:close"), 1);
    const refused = await history(host, { op: "list", documentId: 1 }).catch((error: unknown) => error);
    expect(isBridgeError(refused) && refused.code).toBe("DOCUMENT_NOT_FOUND");
    await host.close();
  });

  it("makes a change made otherwise than by an edit a step of its own, so an undo does not take it back with the edit before it", async () => {
    const host = await connectedHost({ sample: true });
    await host.edit!(call("layer:fill"), { documentId: 1, edit: fill(SAMPLE.subject, [0, 0, 255, 255]) });
    await host.setSelection!(call("selection:set"), { documentId: 1, shape: { kind: "rect", rect: { x: 1, y: 2, width: 3, height: 4 } } });
    const listed = await history(host, { op: "list", documentId: 1 });
    expect(listed.steps.map((step) => step.method)).toEqual(["layer:fill", "selection:set"]);
    await history(host, { op: "undo", documentId: 1, steps: 1 });
    expect(await host.getSelection(call(), 1)).toBeNull();
    await history(host, { op: "redo", documentId: 1, steps: 1 });
    expect(await host.getSelection(call(), 1)).toEqual({ x: 1, y: 2, width: 3, height: 4 });
    await host.close();
  });

  it("keeps at most historySteps steps, and gives memory back before an edit is refused for it", async () => {
    const host = await connectedHost({ sample: false, historySteps: 3 });
    const doc = await host.createDocument!(call(), { width: 400, height: 300, name: "Small", background: WHITE });
    const layerId = (await host.getDocumentTree(call(), doc.id)).layers[0]!.id;
    for (let i = 0; i < 5; i++) await host.edit!(call("layer:fill"), { documentId: doc.id, edit: fill(layerId, [i, 0, 0, 255]) });
    expect(await history(host, { op: "list", documentId: doc.id })).toMatchObject({ current: 3, dropped: 2 });
    expect((await history(host, { op: "list", documentId: doc.id })).steps).toHaveLength(3);

    // A budget that holds the document, one fill's work and little more: history makes room, the edit goes through.
    const layerBytes = 400 * 300 * 4;
    const tight = await connectedHost({ sample: false, memoryBudgetBytes: layerBytes * 3 + layerBytes / 2, historyBudgetPercent: 100 });
    const small = await tight.createDocument!(call(), { width: 400, height: 300, name: "Tight", background: WHITE });
    const id = (await tight.getDocumentTree(call(), small.id)).layers[0]!.id;
    for (let i = 0; i < 6; i++) await tight.edit!(call("layer:fill"), { documentId: small.id, edit: fill(id, [0, i, 0, 255]) });
    const kept = await history(tight, { op: "list", documentId: small.id });
    expect(kept.dropped).toBeGreaterThan(0);
    expect(tight.memoryUse!()!.usedBytes).toBeLessThanOrEqual(tight.memoryUse!()!.budgetBytes);
    await host.close();
    await tight.close();
  });

  it("rolls an atomic batch back to where it began, revision included, and commits one as one step", async () => {
    const host = await connectedHost({ sample: true });
    const start = await history(host, { op: "begin", documentId: 1 });
    await host.edit!(call("layer:fill"), { documentId: 1, edit: fill(SAMPLE.subject, [9, 9, 9, 255]) });
    await host.edit!(call("selection:all"), { documentId: 1, edit: { op: "selection:all" } });
    const rolled = await history(host, { op: "rollback", documentId: 1 });
    expect(rolled).toMatchObject({ rolledBack: 2, current: 0, revision: start.revision });
    expect(rolled.steps).toEqual([]);
    await history(host, { op: "begin", documentId: 1 });
    await host.edit!(call("layer:fill"), { documentId: 1, edit: fill(SAMPLE.subject, [9, 9, 9, 255]) });
    await host.edit!(call("selection:all"), { documentId: 1, edit: { op: "selection:all" } });
    const committed = await history(host, { op: "commit", documentId: 1, name: "batch" });
    expect(committed.steps.map((step) => step.name)).toEqual(["batch"]);
    await host.close();
  });
});

