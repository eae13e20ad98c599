import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { writeFileAtomic } from "../../src/files/index.js";
import { diskFullMidWrite } from "../helpers/disk-full.js";

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "bridge-write-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A recognisable content: `size` bytes of one value. */
const fill = (size: number, value: number): Buffer => Buffer.alloc(size, value);

describe("atomic writes", () => {
  let restore: (() => void) | undefined;
  afterEach(() => {
    restore?.();
    restore = undefined;
  });

  it("replacing a file keeps the previous one as <name>.bak (one backup, replaced each time) and its permissions", async () => {
    const path = join(dir, "keep.psd");
    await writeFile(path, "first");
    await chmod(path, 0o640);
    expect(await writeFileAtomic(path, Buffer.from("second"), { backup: true })).toEqual({ path, backupPath: `${path}.bak` });
    expect([await readFile(path, "utf8"), await readFile(`${path}.bak`, "utf8")]).toEqual(["second", "first"]);
    expect((await stat(path)).mode & 0o777).toBe(0o640);
    await writeFileAtomic(path, Buffer.from("third"), { backup: true });
    expect([await readFile(path, "utf8"), await readFile(`${path}.bak`, "utf8")]).toEqual(["third", "second"]);
    await writeFileAtomic(path, Buffer.from("fourth"));
    expect(await readFile(`${path}.bak`, "utf8")).toBe("second"); // no backup asked: the old one stays as it was
  });

  it("50 rounds of two concurrent writes to one path: the file is the one written last, .bak the other, never a mix", async () => {
    const path = join(dir, "race.psd");
    const size = 3 * 1024 * 1024; // several write calls per file, so interleaving would show
    const original = fill(size, 1);
    await writeFile(path, original);
    for (let round = 0; round < 50; round++) {
      const a = fill(size, 2 + 2 * (round % 100));
      const b = fill(size, 3 + 2 * (round % 100));
      const [wa, wb] = await Promise.all([writeFileAtomic(path, a, { backup: true }), writeFileAtomic(path, b, { backup: true })]);
      expect([wa.path, wb.path]).toEqual([path, path]);
      const [now, backup] = [await readFile(path), await readFile(`${path}.bak`)];
      // Writes to one path run in call order: a, then b.
      expect(now.equals(b), `round ${round}: file`).toBe(true);
      expect(backup.equals(a), `round ${round}: backup`).toBe(true);
    }
    expect((await readdir(dir)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("a write interrupted by a full disk leaves the original byte for byte, no backup made, no temporary file", async () => {
    const path = join(dir, "full.psd");
    const original = fill(64 * 1024, 7);
    await writeFile(path, original);
    restore = await diskFullMidWrite(dir);
    await expect(writeFileAtomic(path, fill(64 * 1024, 9), { backup: true })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      details: { reason: "ENOSPC" },
      message: expect.stringContaining("no space left"),
    });
    restore();
    restore = undefined;
    expect((await readFile(path)).equals(original)).toBe(true);
    const names = await readdir(dir);
    expect(names.filter((name) => name.startsWith(".full.psd") || name === "full.psd.bak")).toEqual([]);
  });

  it("a backup that cannot be made stops the write before the file is touched", async () => {
    const path = join(dir, "blocked.psd");
    await writeFile(path, "original");
    await mkdir(`${path}.bak`); // a folder in the backup's place
    await expect(writeFileAtomic(path, Buffer.from("new"), { backup: true })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await readFile(path, "utf8")).toBe("original");
  });
});
