import { firstValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import type { IsolatedEmbeddedHostOptions } from "../../../src/hosts/isolated/index.js";
import { runTestHook, type TestHook } from "../../../src/hosts/isolated/test-hooks.js";
import { ctx, SMALL_CAP_BYTES, startIsolated } from "./_support.js";

/**
 * Makes the editor fail with `hook` and checks the bridge's side of it: the call fails with a retryable
 * HOST_UNAVAILABLE naming the cause, `lost$` emits that cause once, and `connect()` brings a working editor back.
 */
async function survives(hook: TestHook, options: IsolatedEmbeddedHostOptions, cause: RegExp): Promise<void> {
  const host = await startIsolated({ sample: true, maxMemoryBytes: SMALL_CAP_BYTES, ...options });
  const lost: Error[] = [];
  host.lost$.subscribe((error) => lost.push(error));
  const firstLoss = firstValueFrom(host.lost$);
  const error = await runTestHook(host, hook).catch((caught: unknown) => caught);
  expect(error).toMatchObject({ code: "HOST_UNAVAILABLE", retryable: true, details: { reason: expect.stringMatching(cause) } });
  expect((await firstLoss).message).toMatch(cause);
  await host.connect();
  expect(lost).toHaveLength(1);
  expect(host.restarts).toBe(1);
  const doc = await host.createDocument!(ctx(), { width: 8, height: 8, name: "After", background: [0, 0, 0, 255] });
  expect(doc.id).toBe(2);
}

describe("isolated embedded editor: crashes end the editor, never the bridge", () => {
  it("the V8 heap running out (its own limit, a share of the cap) is a loss naming the JavaScript heap", async () => {
    await survives("heapOom", {}, /^editor ran out of memory \(JavaScript heap limit; signal SIGABRT\)$/);
  });

  it("native memory past the cap (RLIMIT_DATA) is a loss naming the refused allocation", async () => {
    await survives("nativeOom", {}, /^editor ran out of memory \(an allocation was refused; signal SIG[A-Z]+\)$/);
  });

  it("without the process limit, the RSS sampler kills an editor past its cap", async () => {
    await survives("nativeOom", { rlimit: false }, /^editor exceeded its memory cap \(resident \d+ MiB > 768 MiB\)$/);
  });

  it("a native fault (SIGSEGV) is a loss naming the signal", async () => {
    await survives("crash", {}, /^editor crashed: signal SIGSEGV$/);
  });

  it("QuickJS (WebAssembly) scripts still run under the process limit", async () => {
    const host = await startIsolated({ sample: true, maxMemoryBytes: SMALL_CAP_BYTES });
    // ~20 MB of guest heap: the module's WebAssembly memory grows (committed pages count against the limit).
    const source = "'x'.repeat(20_000_000).length + app.activeDocument.layers.length";
    expect(await host.runScript!(ctx(), { source, language: "javascript", params: undefined, timeoutMs: 10_000 })).toBe(20_000_003);
  });
});
