import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GimpSupervisor } from "../../../src/hosts/gimp/index.js";
import { gimpStartCacheDir, keepGimpStart, seedGimpStart } from "../../../src/hosts/gimp/start-cache.js";
import { GIMP_BINARY, GIMP_SKIP } from "./_support.js";

/*
 * The files a GIMP start builds, kept for the next GIMP in a new profile: where they live, how they are kept and
 * copied, and a real GIMP's supervisor keeping and using them.
 */

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "gimp-start-cache-"));
});
afterEach(async () => {
  await chmod(dir, 0o700).catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

/** A GIMP root as the supervisor lays one out, with what a GIMP wrote into it. */
async function rootWith(name: string, files: { registry?: string; fishes?: string }): Promise<string> {
  const root = join(dir, name);
  await mkdir(join(root, "profile"), { recursive: true });
  await mkdir(join(root, "cache", "babl"), { recursive: true });
  if (files.registry !== undefined) await writeFile(join(root, "profile", "pluginrc"), files.registry);
  if (files.fishes !== undefined) await writeFile(join(root, "cache", "babl", "babl-fishes"), files.fishes);
  return root;
}

const read = (path: string) => readFile(path, "utf8").catch(() => undefined);

describe("the GIMP start cache", () => {
  it("lives in the user's cache folder, one folder per GIMP install", async () => {
    const binary = join(dir, "gimp-console");
    await writeFile(binary, "#!/bin/sh\n");
    const env = { XDG_CACHE_HOME: join(dir, "xdg"), PATH: "" };
    const first = await gimpStartCacheDir(binary, env);
    expect(first).toMatch(new RegExp(`^${join(dir, "xdg", "image-editor-bridge", "gimp")}/[0-9a-f]{16}$`));
    expect(await gimpStartCacheDir(binary, env)).toBe(first);
    // Found on PATH by name: the same install, the same folder.
    expect(await gimpStartCacheDir("gimp-console", { ...env, PATH: dir })).toBe(first);
    // Another install (the file changed: an upgrade) has a folder of its own.
    await writeFile(binary, "#!/bin/sh\n# 2.10.40\n");
    expect(await gimpStartCacheDir(binary, env)).not.toBe(first);
    expect(await gimpStartCacheDir(binary, { HOME: join(dir, "home"), PATH: "" })).toMatch(new RegExp(`^${join(dir, "home", ".cache", "image-editor-bridge", "gimp")}/`));
  });

  it("keeps the registry and babl's table once, and copies them into a new root", async () => {
    const cache = join(dir, "cache");
    await keepGimpStart(cache, await rootWith("first", { registry: "registry 1" }));
    expect(await read(join(cache, "pluginrc"))).toBe("registry 1");
    expect(await read(join(cache, "babl", "babl-fishes"))).toBeUndefined();
    // babl's table arrives when GIMP quits; a registry the cache has is not replaced.
    await keepGimpStart(cache, await rootWith("second", { registry: "registry 2", fishes: "fishes" }));
    expect([await read(join(cache, "pluginrc")), await read(join(cache, "babl", "babl-fishes"))]).toEqual(["registry 1", "fishes"]);
    expect((await readdir(cache)).filter((name) => name.endsWith(".partial"))).toEqual([]);
    if (typeof process.getuid === "function") expect((await stat(cache)).mode & 0o777).toBe(0o700);

    const fresh = await rootWith("fresh", {});
    await seedGimpStart(cache, fresh);
    expect([await read(join(fresh, "profile", "pluginrc")), await read(join(fresh, "cache", "babl", "babl-fishes"))]).toEqual(["registry 1", "fishes"]);
    // Nothing kept yet: nothing copied, nothing fails.
    const empty = await rootWith("empty", {});
    await seedGimpStart(join(dir, "nothing-here"), empty);
    expect(await read(join(empty, "profile", "pluginrc"))).toBeUndefined();
  });

  it.skipIf(typeof process.getuid !== "function" || process.getuid() !== 0)(
    "where the folder cannot be written, this process still keeps what it saw",
    async () => {
      // A read-only cache folder (root can write anywhere, so a file stands where the folder should be).
      const blocked = join(dir, "blocked");
      await writeFile(blocked, "not a folder");
      const cache = join(blocked, "gimp");
      await keepGimpStart(cache, await rootWith("first", { registry: "kept in memory" }));
      const fresh = await rootWith("fresh", {});
      await seedGimpStart(cache, fresh);
      expect(await read(join(fresh, "profile", "pluginrc"))).toBe("kept in memory");
    },
  );

  it("uses the user's cache folder by default, and none when told not to", async () => {
    process.env["XDG_CACHE_HOME"] = join(dir, "xdg");
    const kept = (await gimpStartCacheDir(GIMP_BINARY))!;
    await keepGimpStart(kept, await rootWith("earlier", { registry: "from an earlier GIMP" }));
    const rootOf = (supervisor: GimpSupervisor) => (supervisor as unknown as { ensureRoot(): Promise<string> }).ensureRoot();
    const seeded = new GimpSupervisor({ binary: GIMP_BINARY });
    const unseeded = new GimpSupervisor({ binary: GIMP_BINARY, startCache: false });
    try {
      expect(await read(join(await rootOf(seeded), "profile", "pluginrc"))).toBe("from an earlier GIMP");
      expect(await read(join(await rootOf(unseeded), "profile", "pluginrc"))).toBeUndefined();
    } finally {
      await Promise.all([seeded.stop(), unseeded.stop()]);
    }
  });
});

describe.skipIf(GIMP_SKIP !== undefined)("a supervised GIMP and the start cache", () => {
  it("keeps the registry once GIMP started and babl's table once it quit; the next GIMP starts with both", { timeout: 120_000 }, async () => {
    const cache = join(dir, "kept");
    const first = new GimpSupervisor({ binary: GIMP_BINARY, startCache: cache });
    try {
      await first.start();
      expect((await stat(join(cache, "pluginrc"))).size).toBeGreaterThan(1000);
    } finally {
      await first.stop();
    }
    expect((await stat(join(cache, "babl", "babl-fishes"))).size).toBeGreaterThan(100);

    const second = new GimpSupervisor({ binary: GIMP_BINARY, startCache: cache });
    try {
      // The private root the next start uses, made as start() makes it, looked at before GIMP runs in it (GIMP
      // writes its registry again at every start, the same bytes when nothing changed).
      const root = await (second as unknown as { ensureRoot(): Promise<string> }).ensureRoot();
      expect(await readFile(join(root, "profile", "pluginrc"))).toEqual(await readFile(join(cache, "pluginrc")));
      expect(await readFile(join(root, "cache", "babl", "babl-fishes"))).toEqual(await readFile(join(cache, "babl", "babl-fishes")));
      await second.start();
    } finally {
      await second.stop();
    }
  });

});
