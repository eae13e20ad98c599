import { existsSync } from "node:fs";
import { statfs } from "node:fs/promises";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useMemoryTempDir } from "./temp-dir.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TMPFS_MAGIC = 0x01021994;
const shmIsTmpfs = await statfs("/dev/shm").then(
  (room) => room.type === TMPFS_MAGIC,
  () => false,
);

/** Runs `body` with no `TMPDIR` set (the per-file setup puts the file's environment back afterwards anyway). */
async function withoutTmpdir(body: () => Promise<void>): Promise<void> {
  const kept = process.env["TMPDIR"];
  delete process.env["TMPDIR"];
  try {
    await body();
  } finally {
    if (kept === undefined) delete process.env["TMPDIR"];
    else process.env["TMPDIR"] = kept;
  }
}

describe("the run's temp folder (global setup)", () => {
  it("keeps a TMPDIR someone set", async () => {
    const kept = process.env["TMPDIR"];
    process.env["TMPDIR"] = "/somewhere/chosen";
    try {
      expect(await useMemoryTempDir("/dev/shm", 0)).toBeUndefined();
      expect(process.env["TMPDIR"]).toBe("/somewhere/chosen");
    } finally {
      if (kept === undefined) delete process.env["TMPDIR"];
      else process.env["TMPDIR"] = kept;
    }
  });

  it("changes nothing on a disk's file system, or on a tmpfs without the room asked for", async () => {
    await withoutTmpdir(async () => {
      expect(await useMemoryTempDir(ROOT, 0)).toBeUndefined();
      expect(await useMemoryTempDir("/dev/shm", Number.POSITIVE_INFINITY)).toBeUndefined();
      expect(await useMemoryTempDir("/no/such/folder", 0)).toBeUndefined();
      expect(process.env["TMPDIR"]).toBeUndefined();
    });
  });

  it.skipIf(!shmIsTmpfs)("on a tmpfs with room, points TMPDIR (and so os.tmpdir()) at a new folder there, and the teardown removes it", async () => {
    await withoutTmpdir(async () => {
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
