import { Writable } from "node:stream";
import { pino } from "pino";
import { firstValueFrom, merge, map, type Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import { createIsolatedEmbeddedHost, type EditorRestartedEvent } from "../../../src/hosts/isolated/index.js";
import { runTestHook } from "../../../src/hosts/isolated/test-hooks.js";
import { eventually } from "../../helpers/gc.js";
import { ctx, isolatedForFile, isRunning, record, startIsolated } from "./_support.js";

/** Short, so the kill follows the cancel quickly; the rule does not depend on its size. */
const KILL_GRACE_MS = 300;
/** The call's deadline: long enough for the editor to be inside the script when it passes. */
const CALL_DEADLINE_MS = 1_000;

type Announcement = { closed: number } | { restarted: EditorRestartedEvent };

/** `closedDocument` and `editor:restarted` events in the order they arrive. */
function announcements(host: { events(type: string): Observable<unknown> | undefined }, count: number): Promise<Announcement[]> {
  const closed = (host.events("closedDocument") as Observable<{ documentId: number }>).pipe(map((e) => ({ closed: e.documentId })));
  const restarted = (host.events("editor:restarted") as Observable<EditorRestartedEvent>).pipe(map((e) => ({ restarted: e })));
  return record<Announcement>(merge(closed, restarted), count);
}

describe("isolated embedded editor: deadlines enforced from outside, restarts", () => {
  /** One editor for the cases after which it must still be the same process, with its sample, never restarted. */
  const unbroken = isolatedForFile({ sample: true, killGraceMs: KILL_GRACE_MS });

  it("a script stuck in for(;;){} stops at its checkpoint when its call is aborted: the editor lives on with its documents", async () => {
    const host = await unbroken();
    // Warm up: the first run compiles QuickJS; the stuck run must be inside its loop when the deadline passes.
    await host.runScript!(ctx(), { source: "1", language: "javascript", params: undefined, timeoutMs: 5000 });
    const pid = host.pid;
    const stuck = host.runScript!(ctx(AbortSignal.timeout(CALL_DEADLINE_MS)), {
      source: "for(;;){}",
      language: "javascript",
      params: undefined,
      timeoutMs: 60_000,
    });
    // The editor's thread never leaves the loop to read a message: the id on the cancel pipe stops it.
    expect(await stuck.catch((caught: unknown) => caught)).toMatchObject({ code: "CANCELLED" });
    expect(host.pid).toBe(pid);
    expect(host.restarts).toBe(0);
    expect((await host.listDocuments(ctx())).map((d) => d.id)).toEqual([1]);
  });

  it("an editor stuck where no checkpoint reaches is killed after the grace; a fresh editor reports the lost documents and never reuses an id", async () => {
    const host = await startIsolated({ sample: true, killGraceMs: KILL_GRACE_MS, recovery: false });
    const created = await host.createDocument!(ctx(), { width: 10, height: 10, name: "Second", background: [0, 0, 0, 255] });
    expect(created.id).toBe(2);
    const firstPid = host.pid;
    const lost = firstValueFrom(host.lost$);
    const announced = announcements(host, 3);
    const stuck = runTestHook(host, "block", ctx(AbortSignal.timeout(CALL_DEADLINE_MS)));
    const error = await stuck.catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "HOST_UNAVAILABLE", retryable: true, details: { reason: expect.stringMatching(/ignoring a cancelled call/) } });
    expect((await lost).message).toBe(`editor killed after ignoring a cancelled call with its event loop stuck for ${KILL_GRACE_MS} ms (test:block)`);
    expect(host.pid).toBeUndefined();
    expect(isRunning(firstPid!)).toBe(false);
    expect(host.restarts).toBe(1);

    await host.connect();
    expect(host.pid).not.toBe(firstPid);
    expect(await announced).toEqual([
      { closed: 1 },
      { closed: 2 },
      { restarted: expect.objectContaining({ reason: expect.stringMatching(/ignoring a cancelled call/), restarts: 1, lostDocumentIds: [1, 2], recoveredDocumentIds: [] }) },
    ]);
    // The sample is not made again: the documents are gone and the bridge says so.
    expect(await host.listDocuments(ctx())).toEqual([]);
    const next = await host.createDocument!(ctx(), { width: 10, height: 10, name: "Third", background: [0, 0, 0, 255] });
    expect(next.id).toBe(3);
  });

  it("a stuck native call that never reads its cancel is killed after the grace, and every call in flight fails", async () => {
    const host = await startIsolated({ sample: false, killGraceMs: KILL_GRACE_MS, recovery: false });
    const controller = new AbortController();
    const lost = firstValueFrom(host.lost$);
    const stuck = runTestHook(host, "block", ctx(controller.signal)).catch((caught: unknown) => caught);
    const queued = host.listDocuments(ctx()).catch((caught: unknown) => caught);
    controller.abort();
    expect(await stuck).toMatchObject({ code: "HOST_UNAVAILABLE" });
    expect(await queued).toMatchObject({ code: "HOST_UNAVAILABLE", retryable: true });
    expect((await lost).message).toMatch(/ignoring a cancelled call/);
    await host.connect();
    expect(await host.listDocuments(ctx())).toEqual([]);
  });

  it("a document whose recovery copy would pass the disk budget gets none and is reported lost; the others come back", async () => {
    // The editor's log says what its recovery rounds did, should the small copy not come.
    const lines: string[] = [];
    const logger = pino({ level: "debug" }, new Writable({ write: (chunk, _encoding, done) => done(void lines.push(String(chunk))) }));
    const host = await startIsolated({ sample: false, logger, recovery: { settleMs: 20, intervalMs: 600_000, maxBytes: 100_000 } });
    // 160,000 bytes of pixels against a budget of 100,000; the small one takes a few kB.
    const big = await host.createDocument!(ctx(), { width: 200, height: 200, name: "big", background: [1, 2, 3, 255] });
    const small = await host.createDocument!(ctx(), { width: 8, height: 8, name: "small", background: [1, 2, 3, 255] });
    // The big one settled first and was passed over in the same round or an earlier one.
    await eventually(() => host.copiedDocumentIds.includes(small.id), "the small document's copy").catch((error: Error) => {
      throw new Error(`${error.message}; copies current: [${host.copiedDocumentIds.join(", ")}]; the editor's log:\n${lines.join("")}`);
    });
    expect(host.copiedDocumentIds).not.toContain(big.id);
    const lost = firstValueFrom(host.lost$);
    const announced = announcements(host, 2);
    process.kill(host.pid!, "SIGKILL");
    expect((await lost).message).toMatch(/killed from outside/);
    await host.connect();
    expect(await announced).toEqual([
      { closed: big.id },
      {
        restarted: expect.objectContaining({
          restarts: 1,
          lostDocumentIds: [big.id],
          recoveredDocumentIds: [small.id],
          documents: [
            { documentId: big.id, recovered: false, lost: ["document"] },
            { documentId: small.id, recovered: true, lost: [] },
          ],
        }),
      },
    ]);
    expect((await host.listDocuments(ctx())).map((doc) => [doc.id, doc.name])).toEqual([[small.id, "small"]]);
  });

  it("a call whose signal already aborted answers TIMEOUT without reaching the editor", async () => {
    const host = await unbroken();
    const controller = new AbortController();
    controller.abort();
    await expect(host.getDocument(ctx(controller.signal), 1)).rejects.toMatchObject({ code: "TIMEOUT" });
    expect((await host.getDocument(ctx(), 1)).id).toBe(1);
    expect(host.restarts).toBe(0);
  });

  it("close() ends the editor process without a loss, is idempotent, and a later connect() starts afresh", async () => {
    const host = createIsolatedEmbeddedHost({ sample: true, forwardStderr: false });
    let losses = 0;
    host.lost$.subscribe(() => losses++);
    await host.connect();
    const pid = host.pid!;
    await Promise.all([host.close(), host.close()]);
    await host.close();
    expect(host.pid).toBeUndefined();
    await eventually(() => !isRunning(pid), "the editor process to end");
    await expect(host.getDocument(ctx(), 1)).rejects.toMatchObject({ code: "HOST_UNAVAILABLE" });
    await host.connect();
    expect((await host.listDocuments(ctx())).map((doc) => doc.name)).toEqual(["Sample"]);
    await host.close();
    expect(losses).toBe(0);
  });
});
