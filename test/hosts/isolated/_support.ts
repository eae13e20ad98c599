import { readFileSync } from "node:fs";
import { firstValueFrom, type Observable, ReplaySubject, take, toArray } from "rxjs";
import type { HostCallContext } from "../../../src/hosts/host.js";
import { createIsolatedEmbeddedHost, type IsolatedEmbeddedHostOptions, type IsolatedHost } from "../../../src/hosts/isolated/index.js";
import { TEST_HOOKS_ENV } from "../../../src/hosts/isolated/test-hooks.js";
import { afterEachFile, afterEachTest } from "../../helpers/cleanups.js";

const MiB = 1024 * 1024;

/** A cap small enough to reach quickly, large enough for the editor itself (≈ 200 MiB of data at rest). */
export const SMALL_CAP_BYTES = 768 * MiB;

const running: IsolatedHost[] = [];

afterEachTest(async () => {
  await Promise.all(running.splice(0).map((host) => host.close()));
});

const runningForFile: IsolatedHost[] = [];

afterEachFile(async () => {
  await Promise.all(runningForFile.splice(0).map((host) => host.close()));
});

/** A connected isolated editor, closed after the test. Crash output stays out of the test log. */
export async function startIsolated(options: IsolatedEmbeddedHostOptions = {}): Promise<IsolatedHost> {
  // The editor process serves the test hooks: it inherits this environment (set for each file: a file's changes to
  // the environment are undone after it, `test/helpers/per-file.ts`).
  process.env[TEST_HOOKS_ENV] = "1";
  const host = createIsolatedEmbeddedHost({ forwardStderr: false, ...options });
  running.push(host);
  await host.connect();
  return host;
}

/**
 * A connected isolated editor like {@link startIsolated}'s, closed after the test file instead: for cases that
 * check what crosses the process boundary, not the process's own life. Started on first use.
 */
export function isolatedForFile(options: IsolatedEmbeddedHostOptions = {}): () => Promise<IsolatedHost> {
  let started: Promise<IsolatedHost> | undefined;
  return () => {
    started ??= (async () => {
      process.env[TEST_HOOKS_ENV] = "1";
      const host = createIsolatedEmbeddedHost({ forwardStderr: false, ...options });
      runningForFile.push(host);
      await host.connect();
      return host;
    })();
    return started;
  };
}

/** A call context that never aborts, or aborts with `signal`. */
export function ctx(signal: AbortSignal = new AbortController().signal): HostCallContext {
  return { signal, caller: "test" };
}

/** Records every value of a stream from now on, to be read once `count` have come. */
export function record<T>(stream: Observable<T> | undefined, count: number): Promise<T[]> {
  if (stream === undefined) throw new Error("no such stream");
  const seen = new ReplaySubject<T>();
  stream.subscribe(seen);
  return firstValueFrom(seen.pipe(take(count), toArray()));
}

/** A process's state letter (`R` running, `S` sleeping, `Z` zombie…), or `undefined` once it is gone. */
export function processState(pid: number): string | undefined {
  try {
    // The state follows the parenthesised command name.
    return /\)\s+([A-Z])\s/.exec(readFileSync(`/proc/${pid}/stat`, "utf8"))?.[1];
  } catch {
    return undefined;
  }
}

/** Whether a process is still running (a zombie waiting to be reaped counts as gone). */
export function isRunning(pid: number): boolean {
  const state = processState(pid);
  return state !== undefined && state !== "Z" && state !== "X";
}
