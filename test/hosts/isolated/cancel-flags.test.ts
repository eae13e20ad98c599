import { execFileSync } from "node:child_process";
import { mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { watchCancels } from "../../../src/hosts/isolated/cancel-flags.js";

/**
 * A named pipe opened for reading and writing, standing in for the editor's cancel pipe (fd 4). A reader thread, once
 * started, lives as long as the worker's process and reads its descriptor, so `close` removes only the pipe's name:
 * a closed descriptor's number could be given to another file's next open, which the thread would then read.
 */
function cancelPipe(): { fd: number; write(id: number): void; close(): void } {
  const dir = mkdtempSync(join(tmpdir(), "cancel-pipe-"));
  const path = join(dir, "pipe");
  execFileSync("mkfifo", [path]);
  const fd = openSync(path, "r+");
  return {
    fd,
    write: (id) => {
      const bytes = Buffer.alloc(4);
      bytes.writeUInt32LE(id);
      writeSync(fd, bytes);
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Spins as a busy editor loop does, checking at each turn, until the call is seen cancelled or `boundMs` passed. */
function spinUntilCancelled(check: () => boolean, boundMs: number): boolean {
  const end = performance.now() + boundMs;
  while (performance.now() < end) if (check()) return true;
  return false;
}

describe("the editor's cancel flags", () => {
  let pipe: ReturnType<typeof cancelPipe> | undefined;
  afterEach(() => pipe?.close());

  it("a cancel written before the reader thread started is seen once a busy call's checks start it", () => {
    pipe = cancelPipe();
    const flags = watchCancels(pipe.fd, 50);
    const since = performance.now();
    pipe.write(7);
    // Seen only after the call has been busy 50 ms and the thread has read the pipe; the bound only ends a broken
    // reader's spin (the worker's event loop is held meanwhile, as the editor's is).
    expect(spinUntilCancelled(() => flags.cancelled(7, since), 30_000)).toBe(true);
    expect(flags.cancelled(8, since)).toBe(false);
  });

  it("a call's checks before it has been busy that long do not start the reader: its id stays unseen", () => {
    pipe = cancelPipe();
    const flags = watchCancels(pipe.fd, 60_000);
    pipe.write(3);
    // The call started just now, so no check of it starts the thread and nothing reads the pipe.
    expect(spinUntilCancelled(() => flags.cancelled(3, performance.now()), 200)).toBe(false);
  });
});
