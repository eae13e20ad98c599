import { describe, expect, it } from "vitest";
import { firstEditor, untilEditor } from "../helpers/bridge.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import type { Frame, TestClient } from "../helpers/ws-client.js";

/** A document whose export runs the JavaScript compositor (blend modes) for a while. */
async function blendDocument(client: TestClient, size: number): Promise<number> {
  const script = `const doc = app.documents.add(${size}, ${size}, "blend");
const a = doc.artLayers.add("a"); a.fill("#80808080"); a.blendMode = "multiply";
const b = doc.artLayers.add("b"); b.fill("#40404080"); b.blendMode = "screen";
doc.id`;
  const ran = await client.call<{ result: unknown }>("jsx:run", { script });
  return Number(ran.result);
}

/** Sends a request frame with extra top-level fields (`progress`). */
function sendFrame(client: TestClient, frame: Record<string, unknown>): Promise<Frame> {
  client.sendRaw(JSON.stringify(frame));
  return client.next((f) => f.id === frame["id"]);
}

const LOOP = { script: "for(;;){}", timeoutMs: 60_000 };

describe("cancellation over WebSocket", () => {
  it("the connected handshake announces cancel, progress and batch", async () => {
    const harness = await startOnSharedEditor();
    const client = await harness.connect();
    expect((client.hello as { features?: string[] }).features).toEqual(expect.arrayContaining(["cancel", "progress", "batch"]));
  });

  it("a looping script is stopped: CANCELLED at once, the editor is free again without a restart", async () => {
    const harness = await startOnSharedEditor();
    const client = await harness.connect();
    const looping = client.send("jsx:run", LOOP, "loop");
    await untilEditor(harness, (view) => view.running === 1);
    const cancel = await client.call("request:cancel", { id: "loop" });
    expect(cancel).toEqual({ id: "loop", cancelled: true, state: "running" });
    expect((await looping).error).toMatchObject({ code: "CANCELLED", retryable: false });
    // The mailbox moves on: the next call runs once the script stopped at its checkpoint.
    expect(await client.call("document:create", { width: 4, height: 4 })).toMatchObject({ width: 4 });
    expect(await firstEditor(harness)).toMatchObject({ restarts: 0, running: 0 });
  });

  it("a queued export leaves the queue and never runs; the running script is then cancelled too", async () => {
    const harness = await startOnSharedEditor();
    const client = await harness.connect();
    const looping = client.send("jsx:run", LOOP, "loop");
    await untilEditor(harness, (view) => view.running === 1);
    const queued = client.send("image:exportDocument", { format: "png" }, 41 as unknown as string);
    await untilEditor(harness, (view) => view.queued === 1);
    expect(await client.call("request:cancel", { id: 41 })).toEqual({ id: 41, cancelled: true, state: "queued" });
    const answer = await queued;
    expect(answer.id).toBe(41);
    expect(answer.error).toMatchObject({ code: "CANCELLED", details: { outcome: "not-started" } });
    expect((await firstEditor(harness)).queued).toBe(0);
    await client.call("request:cancel", { id: "loop" });
    expect((await looping).error).toMatchObject({ code: "CANCELLED" });
  });

  it("a running export is stopped mid-composite and the editor serves the next call", async () => {
    const harness = await startOnSharedEditor();
    const client = await harness.connect();
    const documentId = await blendDocument(client, 3000);
    const exporting = client.send("image:exportDocument", { documentId, format: "png" }, "big");
    await untilEditor(harness, (view) => view.running === 1);
    expect(await client.call("request:cancel", { id: "big" })).toMatchObject({ cancelled: true, state: "running" });
    expect((await exporting).error).toMatchObject({ code: "CANCELLED" });
    expect(await client.call("document:current")).toMatchObject({ id: documentId });
    expect((await firstEditor(harness)).restarts).toBe(0);
  });

  it("cancelling an unknown or answered id changes nothing; another client's request cannot be cancelled", async () => {
    const harness = await startOnSharedEditor();
    const owner = await harness.connect();
    const stranger = await harness.connect();
    expect(await owner.call("request:cancel", { id: "never-sent" })).toEqual({ id: "never-sent", cancelled: false, state: "unknown" });
    await owner.call("getServerInfo");
    expect(await owner.call("request:cancel", { id: "r1" })).toMatchObject({ cancelled: false, state: "unknown" });
    const looping = owner.send("jsx:run", LOOP, "mine");
    await untilEditor(harness, (view) => view.running === 1);
    expect(await stranger.call("request:cancel", { id: "mine" })).toMatchObject({ cancelled: false, state: "unknown" });
    expect(await owner.call("request:cancel", { id: "mine" })).toMatchObject({ cancelled: true });
    expect((await looping).error).toMatchObject({ code: "CANCELLED" });
  });

  it("cancelling a batch stops the call running and runs none after it", async () => {
    const harness = await startOnSharedEditor();
    const client = await harness.connect();
    const batch = client.send("batch", { requests: [{ method: "jsx:run", params: LOOP }, { method: "document:create", params: { width: 11, height: 11 } }] }, "b1");
    await untilEditor(harness, (view) => view.running === 1);
    expect(await client.call("request:cancel", { id: "b1" })).toMatchObject({ cancelled: true, state: "running" });
    const answer = await batch;
    expect(answer.ok).toBe(true);
    const entries = answer.result as Array<{ ok: boolean; error?: { code: string } }>;
    expect(entries).toHaveLength(1);
    expect(entries[0]!.error).toMatchObject({ code: "CANCELLED" });
    const documents = await client.call<Array<{ width: number }>>("document:list");
    expect(documents.filter((d) => d.width === 11)).toEqual([]);
  });

  it("request:cancel without a usable id is BAD_REQUEST", async () => {
    const harness = await startOnSharedEditor();
    const client = await harness.connect();
    for (const params of [{}, { id: "" }, { id: 1.5 }, { id: ["x"] }]) {
      const answer = await client.send("request:cancel", params);
      expect(answer.error, JSON.stringify(params)).toMatchObject({ code: "BAD_REQUEST", method: "request:cancel" });
    }
  });
});

describe("progress over WebSocket", () => {
  it("an export asked with progress: true gets progress events in order, only before its answer, only to its client", async () => {
    const harness = await startOnSharedEditor({ limits: { progressIntervalMs: 0 } });
    const client = await harness.connect();
    const other = await harness.connect();
    const documentId = await blendDocument(client, 1500);
    const answer = await sendFrame(client, { id: "p1", method: "image:exportDocument", params: { documentId, format: "png" }, progress: true });
    expect(answer.ok).toBe(true);
    // A round trip after the answer: anything the bridge still meant to send has arrived.
    await client.call("getServerInfo");
    const answeredAt = client.frames.indexOf(answer);
    const events = client.frames.filter((f) => f.type === "progress");
    expect(events.length).toBeGreaterThan(0);
    const fractions = events.map((f) => {
      const data = f.data as { requestId: string; progress: number; total?: number };
      expect(data.requestId).toBe("p1");
      return data.total === undefined ? data.progress : data.progress / data.total;
    });
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
    for (const event of events) expect(client.frames.indexOf(event)).toBeLessThan(answeredAt);
    expect(other.frames.filter((f) => f.type === "progress")).toEqual([]);
  });

  it("a request without progress: true gets no progress events", async () => {
    const harness = await startOnSharedEditor({ limits: { progressIntervalMs: 0 } });
    const client = await harness.connect();
    const documentId = await blendDocument(client, 600);
    await client.call("image:exportDocument", { documentId, format: "png" });
    await client.call("getServerInfo");
    expect(client.events("progress")).toEqual([]);
  });

  it("a script reports its own progress", async () => {
    const harness = await startOnSharedEditor({ limits: { progressIntervalMs: 0 } });
    const client = await harness.connect();
    const script = `progress(0.25, "a quarter"); let x = 0; for (let i = 0; i < 2e6; i++) x += i; progress(0.75, "most"); x`;
    const answer = await sendFrame(client, { id: "s1", method: "jsx:run", params: { script }, progress: true });
    expect(answer.ok, JSON.stringify(answer.error)).toBe(true);
    const reported = client.events("progress").map((f) => f.data);
    // The first report always passes (later ones within the editor's throttle interval may not).
    expect(reported[0], JSON.stringify(reported)).toMatchObject({ requestId: "s1", message: "a quarter" });
    const first = reported[0] as { progress: number; total?: number };
    expect(first.progress / (first.total ?? 1)).toBe(0.25);
  });
});

describe("cancellation over HTTP", () => {
  it("a client that goes away before its answer takes its queued call out of the queue", async () => {
    const harness = await startOnSharedEditor();
    const client = await harness.connect();
    const looping = client.send("jsx:run", LOOP, "loop");
    await untilEditor(harness, (view) => view.running === 1);
    const gone = new AbortController();
    const request = harness
      .http("/document/create", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ width: 9, height: 9 }),
        signal: gone.signal,
      })
      .catch((error: unknown) => error);
    await untilEditor(harness, (view) => view.queued === 1);
    gone.abort();
    await request;
    await untilEditor(harness, (view) => view.queued === 0);
    await client.call("request:cancel", { id: "loop" });
    await looping;
    const documents = await client.call<Array<{ width: number }>>("document:list");
    expect(documents.filter((d) => d.width === 9)).toEqual([]);
  });
});
