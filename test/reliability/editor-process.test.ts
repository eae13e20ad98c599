import { afterAll, describe, expect, it } from "vitest";
import type { IsolatedHost } from "../../src/hosts/isolated/index.js";
import { runTestHook, TEST_HOOKS_ENV } from "../../src/hosts/isolated/test-hooks.js";
import { eventually } from "../helpers/gc.js";
import { startBridge, startSuiteBridge, type Harness } from "../helpers/bridge.js";
import type { TestClient } from "../helpers/ws-client.js";
import { until as untilRead } from "../helpers/until.js";

// The editor processes these bridges start serve the test hooks (they inherit this environment).
process.env[TEST_HOOKS_ENV] = "1";

interface EditorView {
  id: string;
  state: string;
  restarts: number;
  running: number;
}

async function editors(harness: Harness): Promise<EditorView[]> {
  return ((await (await harness.http("/status")).json()) as { editors: EditorView[] }).editors;
}

/** Resolves once `condition` holds for the bridge's editors (read from `/status` after each turn, no sleeps). */
async function until(harness: Harness, condition: (editors: EditorView[]) => boolean): Promise<void> {
  await untilRead(() => editors(harness), condition, { what: "the editors' state" });
}

/** A client of `editor` subscribed to what a lost editor reports. */
async function watcher(harness: Harness, editor: string): Promise<TestClient> {
  const client = await harness.connect(`/ws?editor=${editor}`);
  await client.call("event:subscribe", { type: "closedDocument" });
  await client.call("event:subscribe", { type: "editor:restarted" });
  return client;
}

/** Seconds of work inside one host call of a script: the editor's thread cannot read a message meanwhile. */
const STUCK_IN_HOST_CALL = `const doc = app.documents.add(6000, 6000, "big");
const a = doc.artLayers.add("a"); a.fill("#80808080"); a.blendMode = "multiply";
const b = doc.artLayers.add("b"); b.fill("#40404080"); b.blendMode = "screen";
doc.exportImage({ format: "png" });`;

describe("the embedded editor in its own process", () => {
  it("killed mid-call: the caller gets HOST_UNAVAILABLE, subscribers learn what was lost, the other editor carries on", async () => {
    // Without recovery copies: what a lost editor's documents become is what this test is about.
    const harness = await startBridge({ editors: 2, limits: { editorRecoveryMaxBytes: 0 } });
    const watch = await watcher(harness, "embedded-2");
    const other = await harness.connect("/ws?editor=embedded-2");
    const kept = await other.call<{ id: number }>("document:create", { width: 10, height: 10 });
    const victim = await harness.connect("/ws?editor=embedded-1");
    const call = victim.send("jsx:run", { script: "for(;;){}", timeoutMs: 60_000 });
    await until(harness, (all) => all[0]!.running === 1);
    process.kill((harness.bridge.host as IsolatedHost).pid!, "SIGKILL");
    expect((await call).error).toMatchObject({ code: "HOST_UNAVAILABLE", retryable: true });
    const closed = await watch.next((f) => f.type === "closedDocument");
    expect(closed.data).toEqual({ documentId: 1 });
    const restarted = await watch.next((f) => f.type === "editor:restarted");
    expect(restarted.data).toMatchObject({ editorId: "embedded-1", restarts: 1, lostDocumentIds: [1] });
    await until(harness, (all) => all[0]!.state === "ready");
    expect((await editors(harness)).map((e) => e.restarts)).toEqual([1, 0]);
    // The lost document is gone for good; the other editor's is untouched; the restarted editor works.
    expect((await victim.send("document:layers", { documentId: 1 })).error).toMatchObject({ code: "DOCUMENT_NOT_FOUND" });
    expect((await other.call<Array<{ id: number }>>("document:list")).map((d) => d.id)).toEqual([kept.id]);
    const fresh = await victim.call<{ id: number; editorId: string }>("document:create", { width: 5, height: 5 });
    expect(fresh.editorId).toBe("embedded-1");
    expect(fresh.id).toBeGreaterThan(kept.id);
  });

  it("a script stuck in a long host call answers TIMEOUT at its deadline; the call stops at its next checkpoint and the editor carries on", async () => {
    // Graces far longer than any checkpoint needs, even on a loaded machine: a restart here means a checkpoint failed.
    const harness = await startBridge({ limits: { longCallTimeoutMs: 500, editorKillGraceMs: 30_000, abortGraceMs: 30_000 } });
    const client = await harness.connect();
    const answer = await client.send("jsx:run", { script: STUCK_IN_HOST_CALL, timeoutMs: 60_000 });
    expect(answer.error, JSON.stringify(answer.error)).toMatchObject({ code: "TIMEOUT" });
    // The export's compositing reads the cancel between rows, though the editor's thread never returns to read a
    // message: the editor comes back long before it would be killed, with its documents.
    await until(harness, (all) => all[0]!.running === 0);
    expect((await editors(harness))[0]).toMatchObject({ state: "ready", restarts: 0 });
    expect((await client.call<{ id: number }>("document:create", { width: 4, height: 4 })).id).toBeGreaterThan(1);
  });

  it("exports whose deadline passes mid-encode do not get the editor killed: another client's unsaved document is still there", async () => {
    // A kill grace of the old default and a short export deadline: a WebP encode of 4000×4000 runs in sharp's own
    // threads for seconds past both (both encodes were back 5.4 s after the call at load 5: three times the deadline
    // and the grace together, as 8000×8000 was with a 1.5 s deadline, for 0.6 times the CPU). Slots are freed only
    // when the editor really answers (abortGraceMs), so the holder's next change runs after every export is back. Recovery copies off: the document must survive because
    // the editor does, not because a restarted one reopened it.
    const harness = await startBridge({
      limits: { longCallTimeoutMs: 800, editorKillGraceMs: 1_000, abortGraceMs: 120_000, callTimeoutMs: 120_000, editorRecoveryMaxBytes: 0 },
    });
    const owner = await harness.connect();
    const big = await owner.call<{ id: number }>("document:create", { width: 4000, height: 4000, name: "big" });
    const holder = await harness.connect();
    const kept = await holder.call<{ id: number }>("document:create", { width: 32, height: 32, name: "unsaved" });
    // An edit, not a script: a script is a long call, held to this case's 800 ms long-call deadline, which a loaded
    // machine (two copies of the suite at once) overran before the exports began.
    await holder.call("layer:create", { documentId: kept.id, name: "unsaved change", fillColor: "#ff0000" });
    const exports = await Promise.all([1, 2].map(() => owner.send("image:exportDocument", { documentId: big.id, format: "webp" })));
    for (const answer of exports) expect(answer.error, JSON.stringify(answer.error)).toMatchObject({ code: "TIMEOUT" });
    // A change runs alone: it starts once both encodes have come back from the editor.
    expect((await holder.send("selection:set", { documentId: kept.id, rect: { x: 0, y: 0, width: 8, height: 8 } })).error).toBeUndefined();
    expect((await editors(harness))[0]).toMatchObject({ state: "ready", restarts: 0 });
    const layers = await holder.call<Array<{ name: string }>>("document:layers", { documentId: kept.id });
    expect(layers.map((layer) => layer.name)).toContain("unsaved change");
    const docs = await holder.call<Array<{ id: number; isDirty: boolean }>>("document:list");
    expect(docs.find((doc) => doc.id === kept.id)).toMatchObject({ isDirty: true });
  });

  it("an editor killed with SIGKILL comes back with every document under its id, layer ids, dirty flag and active document, the loss reported", async () => {
    // A document is copied once its changes settle (50 ms), then not again within the test: a change made after
    // its first copy is the one a loss takes.
    const harness = await startBridge({ limits: { editorRecoverySettleMs: 50, editorRecoveryIntervalMs: 600_000 } });
    const watch = await watcher(harness, "embedded-1");
    const host = harness.bridge.host as IsolatedHost;
    const a = await harness.connect();
    // Made and changed in one call: its first copy has the change.
    await a.call("jsx:run", { script: 'app.documents.add(64, 48, "A").artLayers.add("kept change").fill("#00ff0080");' });
    const docA = await a.call<{ id: number }>("document:current");
    const b = await harness.connect();
    const docB = await b.call<{ id: number }>("document:create", { width: 32, height: 32, name: "B" });
    await eventually(() => [1, docA.id, docB.id].every((id) => host.copiedDocumentIds.includes(id)), "the first recovery copies");
    // After the copies: a selection on A, a change on B (the active document) that no copy holds.
    await a.call("selection:set", { documentId: docA.id, rect: { x: 2, y: 2, width: 10, height: 10 } });
    await b.call("jsx:run", { script: 'app.activeDocument.artLayers.add("late change");' });
    const layersA = await a.call<Array<{ id: number; name: string }>>("document:layers", { documentId: docA.id });
    const treeB = await b.call<Array<{ id: number; name: string }>>("document:layers", { documentId: docB.id });
    expect(treeB.map((layer) => layer.name)).toContain("late change");

    process.kill(host.pid!, "SIGKILL");
    const restarted = await watch.next((f) => f.type === "editor:restarted");
    expect(restarted.data).toMatchObject({ editorId: "embedded-1", restarts: 1, lostDocumentIds: [] });
    const data = restarted.data as { recoveredDocumentIds: number[]; documents: Array<{ documentId: number }> };
    expect([...data.recoveredDocumentIds].sort((x, y) => x - y)).toEqual([1, docA.id, docB.id]);
    expect([...data.documents].sort((x, y) => x.documentId - y.documentId)).toEqual([
      { documentId: 1, recovered: true, lost: [] },
      { documentId: docA.id, recovered: true, lost: ["selection"] },
      { documentId: docB.id, recovered: true, lost: ["changes"] },
    ]);
    await until(harness, (all) => all[0]!.state === "ready");
    // Every document is back under its id: A with its unsaved change and its layer ids, B as its copy had it.
    expect(await a.call("document:layers", { documentId: docA.id })).toEqual(layersA);
    const docs = await a.call<Array<{ id: number; name: string; isDirty: boolean }>>("document:list");
    expect(docs.map((doc) => [doc.id, doc.name, doc.isDirty])).toEqual([
      [1, "Sample", false],
      [docA.id, "A", true],
      [docB.id, "B", false],
    ]);
    const backB = await b.call<Array<{ name: string }>>("document:layers", { documentId: docB.id });
    expect(backB.map((layer) => layer.name)).not.toContain("late change");
    expect((await b.call<{ id: number }>("document:current")).id).toBe(docB.id);
    expect(await a.call("selection:getArea", { documentId: docA.id })).toBeNull();
    // The editor works on, and new ids still come after the old ones.
    expect((await b.call<{ id: number }>("document:create", { width: 4, height: 4 })).id).toBeGreaterThan(docB.id);
  });

  it("in a pool, a killed editor's documents come back under the bridge's ids, not the editor's own", async () => {
    const harness = await startBridge({ editors: 2, limits: { editorRecoverySettleMs: 50, editorRecoveryIntervalMs: 600_000 } });
    const watch = await watcher(harness, "embedded-1");
    const host = harness.bridge.host as IsolatedHost;
    // The second editor's document takes bridge id 2, so the first editor's next document differs from its own id.
    const other = await harness.connect("/ws?editor=embedded-2");
    const taken = await other.call<{ id: number }>("document:create", { width: 4, height: 4 });
    const client = await harness.connect("/ws?editor=embedded-1");
    const doc = await client.call<{ id: number; editorId: string }>("document:create", { width: 16, height: 16, name: "pooled" });
    expect(doc.editorId).toBe("embedded-1");
    await eventually(() => host.copiedDocumentIds.length === 2, "copies of the sample and the new document");
    const layers = await client.call("document:layers", { documentId: doc.id });
    const before = await client.call<Array<{ id: number }>>("document:list");

    process.kill(host.pid!, "SIGKILL");
    const restarted = await watch.next((f) => f.type === "editor:restarted");
    expect(restarted.data).toMatchObject({ editorId: "embedded-1", lostDocumentIds: [], recoveredDocumentIds: [1, doc.id] });
    await until(harness, (all) => all[0]!.state === "ready");
    expect(await client.call("document:layers", { documentId: doc.id })).toEqual(layers);
    expect((await client.call<Array<{ id: number }>>("document:list")).map((d) => d.id).sort()).toEqual(before.map((d) => d.id).sort());
    // No id was handed out for the reopened documents: the next new one comes right after the ids in use.
    const next = await client.call<{ id: number }>("document:create", { width: 4, height: 4 });
    expect(next.id).toBe(Math.max(doc.id, taken.id) + 1);
  });

  /*
   * One bridge for the three failures in turn, as an editor that fails again and again would meet them: each is
   * restarted after the one before, and each restart is counted.
   */
  describe("an editor that fails in each way in turn", () => {
    let shared: Promise<{ harness: Harness; watch: TestClient; close: () => Promise<void> }> | undefined;
    afterAll(async () => {
      await (await shared)?.close();
    });
    const HOOKS = ["crash", "heapOom", "nativeOom"] as const;
    for (const hook of HOOKS) {
      it(`an editor that ${hook === "crash" ? "crashes natively" : hook === "heapOom" ? "runs out of V8 heap" : "runs out of native memory"} is restarted; the bridge keeps serving`, async () => {
        shared ??= startSuiteBridge({ limits: { editorMaxMemoryBytes: 768 * 1024 * 1024 } }).then(async (harness) => ({
          harness,
          watch: await watcher(harness, "embedded-1"),
          close: harness.close,
        }));
        const { harness, watch } = await shared;
        const host = harness.bridge.host as IsolatedHost;
        // The restarts before this one (none when the case runs alone).
        const before = (await editors(harness))[0]!.restarts;
        await runTestHook(host, hook).catch(() => {});
        const restarted = await watch.next((f) => f.type === "editor:restarted" && (f.data as { restarts: number }).restarts === before + 1);
        expect(restarted.data).toMatchObject({ editorId: "embedded-1", restarts: before + 1 });
        expect((await (await harness.http("/health")).json()) as object).toMatchObject({ status: "ok" });
        await until(harness, (all) => all[0]!.state === "ready");
        expect((await watch.call<{ id: number }>("document:create", { width: 4, height: 4 })).id).toBeGreaterThan(1);
      });
    }
  });
});
