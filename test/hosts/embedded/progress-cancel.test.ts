import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInSandbox } from "../../../src/hosts/embedded/scripts/index.js";
import { ROW_BAND } from "../../../src/hosts/embedded/work.js";
import type { HostAdapter, HostCallContext } from "../../../src/hosts/host.js";
import { BridgeError } from "../../../src/protocol/index.js";
import { connectedHost, ctx, solidPng, WHITE } from "./helpers.js";

interface Report {
  readonly progress: number;
  readonly total: number | undefined;
  readonly message: string | undefined;
}

/** A call context that records every progress report. */
function recording(): { ctx: HostCallContext; reports: Report[] } {
  const reports: Report[] = [];
  return {
    reports,
    ctx: { signal: new AbortController().signal, caller: "test", progress: (progress, total, message) => reports.push({ progress, total, message }) },
  };
}

/** A call context whose checkpoint throws `reason` from its `(after + 1)`th call on; `calls` counts them all. */
function cancelledAfter(after: number, reason = new BridgeError("CANCELLED", "Cancelled by the client")): {
  ctx: HostCallContext;
  calls: () => number;
  reports: Report[];
  reason: BridgeError;
} {
  let calls = 0;
  const reports: Report[] = [];
  const context: HostCallContext = {
    signal: new AbortController().signal,
    caller: "test",
    progress: (progress, total, message) => reports.push({ progress, total, message }),
    checkpoint: () => {
      calls++;
      if (calls > after) throw reason;
    },
  };
  return { ctx: context, calls: () => calls, reports, reason };
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

/** Messages in the order they were reported, each once. */
function stagesIn(reports: readonly Report[]): (string | undefined)[] {
  return reports.map((r) => r.message).filter((message, i, all) => i === 0 || all[i - 1] !== message);
}

function expectMonotonicToTotal(reports: readonly Report[]): void {
  expect(reports.length).toBeGreaterThan(1);
  const total = reports[0]?.total;
  expect(total).toBeGreaterThan(0);
  for (let i = 0; i < reports.length; i++) {
    expect(reports[i]?.total).toBe(total);
    if (i > 0) expect(reports[i]!.progress).toBeGreaterThanOrEqual(reports[i - 1]!.progress);
  }
  expect(reports.at(-1)?.progress).toBe(total);
}

/** A document of `width`×`height` with three full-canvas layers in blend modes (rendered by the JS compositor). */
async function blendDocument(host: HostAdapter, width: number, height: number): Promise<number> {
  const doc = await host.createDocument!(ctx(), { width, height, name: "blend", background: WHITE });
  await host.runScript!(ctx(), {
    language: "javascript",
    params: undefined,
    timeoutMs: 10_000,
    source: `const d = app.activeDocument;
      [["multiply", "#c08040"], ["screen", "#204080"], ["overlay", [10, 200, 90, 200]]].forEach(([mode, colour]) => {
        const layer = d.artLayers.add(); layer.fill(colour); layer.blendMode = mode;
      });`,
  });
  return doc.id;
}

describe("embedded host: progress and cancellation", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "embedded-progress-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("an export through the JS compositor reports rows while compositing, then encoding, ending at its total", async () => {
    const host = await connectedHost({ sample: false });
    const documentId = await blendDocument(host, 300, 200);
    const { ctx: context, reports } = recording();
    const size = { width: 300, height: 200 };
    const image = await host.exportDocumentImage(context, { documentId, format: "png", size });
    expectMonotonicToTotal(reports);
    expect(stagesIn(reports)).toEqual(["compositing", "encoding"]);
    // Three blended layers of 200 rows and the background's copy, every ROW_BAND rows: many row reports.
    expect(reports.filter((r) => r.message === "compositing").length).toBeGreaterThanOrEqual((4 * 200) / ROW_BAND);
    // Reporting changes nothing about the pixels.
    const plain = await host.exportDocumentImage(ctx(), { documentId, format: "png", size });
    expect(Buffer.from(image.bytes).equals(Buffer.from(plain.bytes))).toBe(true);
  });

  it("a layer export and an import report their stages", async () => {
    const host = await connectedHost({ sample: false });
    const documentId = await blendDocument(host, 64, 48);
    const bytes = await solidPng(32, 16, [255, 0, 0, 255]);
    const imported = recording();
    const layerId = await host.importLayer!(imported.ctx, {
      documentId,
      image: { bytes, format: "png", width: 32, height: 16 },
      size: { width: 32, height: 16 },
      position: { x: 4, y: 4 },
      name: "Red",
      aboveLayerId: null,
    });
    expectMonotonicToTotal(imported.reports);
    expect(stagesIn(imported.reports)).toEqual(["decoding", "placing"]);
    const exported = recording();
    await host.exportLayerImage(exported.ctx, { documentId, layerId, format: "png", size: { width: 32, height: 16 } });
    expectMonotonicToTotal(exported.reports);
    expect(stagesIn(exported.reports).at(-1)).toBe("encoding");
  });

  it("a PSD save reports compositing, encoding and writing; opening it reports reading, parsing and building layers", async () => {
    const host = await connectedHost({ sample: false });
    const documentId = await blendDocument(host, 120, 90);
    const path = join(dir, "stages.psd");
    const saved = recording();
    await host.saveDocument!(saved.ctx, { documentId, path, backup: false });
    expectMonotonicToTotal(saved.reports);
    expect(stagesIn(saved.reports)).toEqual(["compositing", "encoding", "writing"]);
    const opened = recording();
    const doc = await host.openDocument!(opened.ctx, path);
    expectMonotonicToTotal(opened.reports);
    expect(stagesIn(opened.reports)).toEqual(["reading", "parsing", "building layers"]);
    expect(doc).toMatchObject({ width: 120, height: 90 });
  });

  it("a cutout reports its stages up to its total", async () => {
    const host = await connectedHost();
    const { ctx: context, reports } = recording();
    const documentId = (await host.getDocument(ctx(), undefined)).id;
    await host.removeBackground!(context, { documentId, layerId: 3 });
    expectMonotonicToTotal(reports);
    expect(stagesIn(reports)).toEqual(expect.arrayContaining(["scaling", "segmenting", "scaling the mask"]));
    const flood = recording();
    await host.removeBackground!(flood.ctx, { documentId, layerId: 3, method: "flood" });
    expectMonotonicToTotal(flood.reports);
    expect(stagesIn(flood.reports)).toEqual(expect.arrayContaining(["scaling", "flood fill", "feathering"]));
  });

  it("a script's progress(p, message) is reported as a fraction of 1; host calls it awaits report nothing of their own", async () => {
    const host = await connectedHost();
    const { ctx: context, reports } = recording();
    const result = await host.runScript!(context, {
      language: "javascript",
      params: undefined,
      timeoutMs: 10_000,
      source: `progress(0.5, "half"); app.activeDocument.exportImage({ maxSize: 64 }).then(() => { progress(1); return "ok"; })`,
    });
    expect(result).toBe("ok");
    expect(reports).toEqual([
      { progress: 0.5, total: 1, message: "half" },
      { progress: 1, total: 1, message: undefined },
    ]);
  });

  it("progress refuses NaN, values outside 0–1, non-numbers and a non-string or overlong message", async () => {
    const host = await connectedHost();
    const { ctx: context, reports } = recording();
    const caught = await host.runScript!(context, {
      language: "javascript",
      params: undefined,
      timeoutMs: 10_000,
      source: `[[NaN], [-0.1], [1.5], ["0.5"], [undefined], [Infinity], [0.5, 42], [0.5, "x".repeat(10000)]].map((args) => {
        try { progress(...args); return "accepted"; } catch (e) { return [e.code, e.message]; }
      })`,
    });
    expect(caught).toHaveLength(8);
    for (const outcome of caught as unknown[]) expect(outcome).toEqual(["BAD_REQUEST", expect.any(String)]);
    const messages = (caught as [string, string][]).map(([, message]) => message);
    expect(messages[0]).toBe("progress(p, message?) needs p as a number from 0 to 1, got NaN");
    expect(messages[3]).toBe("progress(p, message?) needs p as a number from 0 to 1, got string");
    expect(messages[6]).toBe("progress(p, message?) needs message as a string, got number");
    expect(messages[7]).toMatch(/Invalid arguments to script\.progress/);
    expect(reports).toEqual([]);
    const uncaught = await failureOf(host.runScript!(context, { language: "javascript", params: undefined, timeoutMs: 10_000, source: "progress(2)" }));
    expect(uncaught).toMatchObject({ code: "JSX_FAILED", details: { kind: "error", code: "BAD_REQUEST" } });
  });

  it("a cancelled checkpoint stops a big blend-mode export within one band of rows, with the abort reason", async () => {
    const host = await connectedHost({ sample: false });
    const documentId = await blendDocument(host, 2000, 1500);
    const after = 5;
    const cancelled = cancelledAfter(after);
    const failure = await failureOf(host.exportDocumentImage(cancelled.ctx, { documentId, format: "png", size: { width: 2000, height: 1500 } }));
    expect(failure).toBe(cancelled.reason);
    // It stopped at the first checkpoint that threw, and had composited a few bands of thousands of rows.
    expect(cancelled.calls()).toBe(after + 1);
    const last = cancelled.reports.at(-1)!;
    expect(last.message).toBe("compositing");
    expect(last.progress).toBeLessThanOrEqual(after * ROW_BAND);
    expect(last.total).toBeGreaterThan(4 * 1500);
  });

  it("an aborted signal stops an export with its reason, or TIMEOUT when the reason is not a bridge error", async () => {
    const host = await connectedHost({ sample: false });
    const documentId = await blendDocument(host, 64, 48);
    const options = { documentId, format: "png" as const, size: { width: 64, height: 48 } };
    const cancel = new AbortController();
    const reason = new BridgeError("CANCELLED", "Cancelled by the client");
    cancel.abort(reason);
    expect(await failureOf(host.exportDocumentImage({ signal: cancel.signal, caller: "test" }, options))).toBe(reason);
    const other = new AbortController();
    other.abort(new Error("shutdown"));
    expect(await failureOf(host.exportDocumentImage({ signal: other.signal, caller: "test" }, options))).toMatchObject({ code: "TIMEOUT" });
  });

  it("a cancelled checkpoint stops a busy script long before its deadline, failing with the abort reason", async () => {
    const host = await connectedHost();
    const cancelled = cancelledAfter(20);
    const started = performance.now();
    const failure = await failureOf(host.runScript!(cancelled.ctx, { language: "javascript", params: undefined, timeoutMs: 60_000, source: "for (;;) {}" }));
    expect(failure).toBe(cancelled.reason);
    expect(performance.now() - started).toBeLessThan(5_000);
    // The interrupt handler saw the throw and stopped asking.
    expect(cancelled.calls()).toBe(21);
    expect(await host.runScript!(ctx(), { language: "javascript", params: undefined, timeoutMs: 5_000, source: "1 + 1" })).toBe(2);
  });

  it("a script's fill of a big layer checks for cancellation every band of rows, inside the one editor call", async () => {
    const host = await connectedHost({ sample: false });
    const checks = async (size: number): Promise<number> => {
      const counting = cancelledAfter(Number.POSITIVE_INFINITY);
      const source = `const doc = app.documents.add(${size}, ${size}, "f"); doc.artLayers.add("a").fill("#80808080"); 1`;
      await host.runScript!(counting.ctx, { language: "javascript", params: undefined, timeoutMs: 60_000, source });
      return counting.calls();
    };
    const small = await checks(32);
    const big = await checks(3200);
    // The same script, so the same checks by the script's own interrupt handler: the difference is the fill's rows.
    expect(big - small).toBeGreaterThanOrEqual(3200 / 32 - 1);
  });

  it("a script whose awaited editor call was cancelled fails with the abort reason, whether it lets it through or catches it", async () => {
    const host = await connectedHost({ sample: false });
    await blendDocument(host, 1000, 800);
    for (const source of [
      "app.activeDocument.exportImage()",
      `(async () => { try { await app.activeDocument.exportImage(); } catch (e) { "swallowed " + e.code; } for (;;) {} })()`,
    ]) {
      const cancelled = cancelledAfter(3, new BridgeError("TIMEOUT", "The call ran out of time"));
      const failure = await failureOf(host.runScript!(cancelled.ctx, { language: "javascript", params: undefined, timeoutMs: 60_000, source }));
      expect(failure).toBe(cancelled.reason);
    }
  });

  it("a script waiting on a host operation that never settles stops when the signal aborts", async () => {
    const controller = new AbortController();
    const reason = new BridgeError("CANCELLED", "Cancelled by the client");
    const failure = await failureOf(
      runInSandbox({
        source: "__hostAsync('wait', 'null')",
        filename: "wait.js",
        timeoutMs: 60_000,
        signal: controller.signal,
        callAsync: () => {
          queueMicrotask(() => controller.abort(reason));
          return new Promise<never>(() => {});
        },
      }),
    );
    expect(failure).toBe(reason);
  });

  it("a cancelled checkpoint stops a cutout between its stages", async () => {
    const host = await connectedHost();
    const documentId = (await host.getDocument(ctx(), undefined)).id;
    const cancelled = cancelledAfter(2);
    const failure = await failureOf(host.autoCutout!(cancelled.ctx, { documentId, layerId: 3 }));
    expect(failure).toBe(cancelled.reason);
    expect(cancelled.calls()).toBe(3);
    // Stopped before feathering, the last stage; the selection is untouched.
    expect(cancelled.reports.map((r) => r.message)).not.toContain("feathering");
    expect(await host.getSelection(ctx(), documentId)).toBeNull();
  });
});
