import { createHash, randomUUID } from "node:crypto";
import { copyFile, mkdir, readFile, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { projectCacheDir } from "../../cache-dir.js";

/**
 * What a GIMP start builds that a later start in a new profile can reuse, kept per user and per GIMP install:
 *
 * - the plug-in registry (`pluginrc`), which GIMP writes into its profile once it has asked every plug-in what it
 *   offers (dozens of short-lived processes); GIMP checks it against each plug-in's file and asks changed ones again;
 * - babl's table of pixel conversions (`babl/babl-fishes` in the cache folder), which babl writes when GIMP quits
 *   and checks itself when it reads it.
 *
 * The bridge gives every GIMP a private profile and cache folder. Measured on a busy two-core machine, a start and
 * quit of `gimp-console-2.10` took 3.4–3.6 CPU-seconds (11 s) in an empty profile, 1.8–2.3 with the registry and
 * 0.9–1.0 with both, as much as a start in a profile GIMP had already used.
 *
 * The files live in `$XDG_CACHE_HOME/image-editor-bridge/gimp/<install>/` (`~/.cache` without `XDG_CACHE_HOME`),
 * `<install>` naming the binary's real path, size and time, so an upgraded GIMP starts its own. Each is written
 * under a temporary name and renamed, so bridges starting GIMPs at once never read half a file. A folder that
 * cannot be written (a read-only home) keeps them for this process only; a folder another user owns is not used.
 */

/** Where each kept file lives: under the profile or under the cache folder of a GIMP's private root. */
const KEPT = [
  { file: "pluginrc", under: "profile" },
  { file: join("babl", "babl-fishes"), under: "cache" },
] as const;

/** What this process kept, by its path in the cache: a start after a failed write (a read-only home) still has it. */
const remembered = new Map<string, Buffer>();

/** The folder of a GIMP install's start files, or undefined when there is no home to keep them in. */
export async function gimpStartCacheDir(binary: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const base = projectCacheDir(env);
  if (base === undefined) return undefined;
  const found = await locate(binary, env);
  const identity = found === undefined ? binary : await stat(found).then((s) => `${found}\0${s.size}\0${s.mtimeMs}`, () => found);
  return join(base, "gimp", createHash("sha256").update(identity).digest("hex").slice(0, 16));
}

/** The binary's real path: as given when it has a slash, else the first match on PATH. */
async function locate(binary: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const candidates = binary.includes("/") ? [binary] : (env["PATH"] ?? "").split(delimiter).filter(isAbsolute).map((dir) => join(dir, binary));
  for (const candidate of candidates) {
    const real = await realpath(candidate).catch(() => undefined);
    if (real !== undefined) return real;
  }
  return undefined;
}

/** Copies the kept files into a new GIMP root (`profile/`, `cache/` below it) before GIMP starts there. */
export async function seedGimpStart(cacheDir: string, root: string): Promise<void> {
  const usable = await ownFolder(cacheDir);
  for (const { file, under } of KEPT) {
    const target = join(root, under, file);
    if (usable && (await copy(join(cacheDir, file), target))) continue;
    const kept = remembered.get(join(cacheDir, file));
    if (kept === undefined) continue;
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, kept);
  }
}

/**
 * Keeps what a GIMP wrote into its root and the cache lacks: the registry once GIMP started, babl's table once it
 * quit. A file the cache already has is left as it is.
 */
export async function keepGimpStart(cacheDir: string, root: string): Promise<void> {
  for (const { file, under } of KEPT) {
    const target = join(cacheDir, file);
    if (remembered.has(target) || (await exists(target))) continue;
    const bytes = await readFile(join(root, under, file)).catch(() => undefined);
    if (bytes === undefined) continue;
    remembered.set(target, bytes);
    await mkdir(dirname(target), { recursive: true, mode: 0o700 }).catch(() => {});
    if (!(await ownFolder(cacheDir))) continue;
    const partial = `${target}.${randomUUID()}.partial`;
    await writeFile(partial, bytes, { mode: 0o600 })
      .then(() => rename(partial, target))
      .catch(() => rm(partial, { force: true }));
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function copy(from: string, to: string): Promise<boolean> {
  try {
    await mkdir(dirname(to), { recursive: true });
    await copyFile(from, to);
    return true;
  } catch {
    return false;
  }
}

/** Whether the folder exists and belongs to this process's user (where there are users). */
async function ownFolder(path: string): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined || !info.isDirectory()) return false;
  return typeof process.getuid !== "function" || info.uid === process.getuid();
}
