/**
 * What the files-root race tests share: a child process that swaps a folder for a symlink to somewhere outside the
 * root and back as fast as it can, the two images whose sizes tell an inside read from an outside one, and a pool
 * that keeps calls in flight while it runs.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import sharp from "sharp";

/** Canvas sizes telling the two files apart by what an open answers. */
export const INSIDE = 3;
export const OUTSIDE = 7;

/**
 * Swaps `sub` for a symlink to `outside` and back (through `moved`) until killed. With a dwell of 0 it swaps as fast
 * as it can; otherwise the real folder and the link each stay in place for a random time up to the dwell.
 */
const SWAPPER = `
const fs = require("node:fs");
const [sub, moved, outside, dwell] = process.argv.slice(1);
const dwellMs = Number(dwell);
const cell = new Int32Array(new SharedArrayBuffer(4));
const rest = () => { if (dwellMs > 0) Atomics.wait(cell, 0, 0, Math.random() * dwellMs); };
for (;;) {
  try { fs.renameSync(sub, moved); fs.symlinkSync(outside, sub); rest(); fs.unlinkSync(sub); fs.renameSync(moved, sub); rest(); } catch {}
}`;

/**
 * Starts the swapper on `sub` (moved aside as `moved` while the link stands in for it). A call that needs the real
 * folder at two moments (a GIMP save: at the check, then again when the bridge copies GIMP's file in) almost never
 * finds it twice in a swapper that swaps as fast as it can on a loaded machine; `dwellMs` keeps each state in place
 * for a random while, so about half such calls go through and half meet the link, whatever the machine's speed.
 */
export function startSwapper(sub: string, moved: string, outside: string, dwellMs = 0): ChildProcess {
  return spawn(process.execPath, ["-e", SWAPPER, sub, moved, outside, String(dwellMs)], { stdio: "ignore" });
}

/** Stops the swapper if it still runs; resolves once it has exited, so the folder is left as it was last swapped. */
export async function stopSwapper(swapper: ChildProcess | undefined): Promise<void> {
  if (swapper === undefined || swapper.exitCode !== null || swapper.signalCode !== null) return;
  swapper.kill("SIGKILL");
  await once(swapper, "exit");
}

/** A red PNG `side` pixels square. */
export const png = (side: number): Promise<Buffer> =>
  sharp({ create: { width: side, height: side, channels: 4, background: { r: 200, g: 10, b: 10, alpha: 1 } } })
    .png()
    .toBuffer();

/** Runs `work(i)` for i < count, `concurrency` at a time. */
export async function pool(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

/**
 * Runs `work(i)` (true when the call went through, false when it was refused), `concurrency` at a time, at least
 * `count` times and on until one went through, at most `max` times. A swapper that wins every round of `count`
 * leaves a race with nothing to check (everything refused); going on until a call gets through keeps the test's
 * verdict from depending on how the machine schedules the swapper.
 */
export async function raceUntilThrough(count: number, max: number, concurrency: number, work: (i: number) => Promise<boolean>): Promise<number> {
  let next = 0;
  let through = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < max && (next < count || through === 0)) if (await work(next++)) through++;
    }),
  );
  return through;
}
