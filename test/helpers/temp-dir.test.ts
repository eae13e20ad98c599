import { existsSync } from "node:fs";
import { statfs } from "node:fs/promises";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { TMPFS_MAGIC, useMemoryTempDir } from "./temp-dir.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const shmIsTmpfs = await statfs("/dev/shm").then(
  (room) => room.type === TMPFS_MAGIC,
  () => false,
);

/** Runs `body` with `TMPDIR` set to `value` (unset when undefined), and puts it back after. */
async function withTmpdir(value: string | undefined, body: () => Promise<void>): Promise<void> {
  const kept = process.env["TMPDIR"];
  if (value === undefined) delete process.env["TMPDIR"];
  else process.env["TMPDIR"] = value;
  try {
    await body();
  } finally {
    if (kept === undefined) delete process.env["TMPDIR"];
    else process.env["TMPDIR"] = kept;
  }
}

describe("the run's temp folder (global setup)", () => {
  it("keeps a TMPDIR someone set", async () => {
    await withTmpdir("/somewhere/chosen", async () => {
      expect(await useMemoryTempDir("/dev/shm", 0)).toBeUndefined();
      expect(process.env["TMPDIR"]).toBe("/somewhere/chosen");
    });
  });

  it("changes nothing on a disk's file system, or on a tmpfs without the room asked for", async () => {
    await withTmpdir(undefined, async () => {
      expect(await useMemoryTempDir(ROOT, 0)).toBeUndefined();
      expect(await useMemoryTempDir("/dev/shm", Number.POSITIVE_INFINITY)).toBeUndefined();
      expect(await useMemoryTempDir("/no/such/folder", 0)).toBeUndefined();
      expect(process.env["TMPDIR"]).toBeUndefined();
    });
  });

  it.skipIf(!shmIsTmpfs)("on a tmpfs with room, points TMPDIR (and so os.tmpdir()) at a new folder there, and the teardown removes it", async () => {
    await withTmpdir(undefined, async () => {
      const teardown = await useMemoryTempDir("/dev/shm", 0);
      expect(teardown).toBeDefined();
      const dir = tmpdir();
      expect(dir).toMatch(/^\/dev\/shm\/image-editor-bridge-test-/);
      expect(existsSync(dir)).toBe(true);
      await teardown!();
      expect(existsSync(dir)).toBe(false);
      expect(process.env["TMPDIR"]).toBeUndefined();
    });
  });
});
