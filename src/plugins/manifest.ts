import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { basename, isAbsolute, join, relative, resolve } from "node:path";
import { BridgeError } from "../protocol/index.js";

/** Plugin ids: URL- and log-safe, bounded. */
export const PLUGIN_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
/** Largest package.json read, so a hostile folder cannot make discovery read a huge file. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

/** A plugin folder found by discovery, before anything in it is trusted. */
export interface PluginCandidate {
  /** The folder as given or listed. */
  readonly dir: string;
  /** The folder with symlinks resolved; two candidates with one `realDir` are one plugin. */
  readonly realDir: string;
  /** An id to report failures under until the plugin's own id is known: the folder name, made id-safe. */
  readonly fallbackId: string;
}

/** What a plugin's package.json says, checked. */
export interface PluginManifest {
  readonly name: string;
  /** Absolute path of the entry module, inside the plugin folder. */
  readonly main: string;
  /** `imageEditorBridge.id`, or the package name without its scope. */
  readonly id: string;
  /** Whether the id was named explicitly (`imageEditorBridge.id`); the definition must then agree. */
  readonly explicitId: boolean;
  readonly config: Readonly<Record<string, unknown>>;
  /** `imageEditorBridge.mcp`: the plugin's methods may be offered as MCP tools. @default false */
  readonly mcp: boolean;
}

/** A load failure before the plugin's code ran: `details.phase` says where. */
export function loadFailure(phase: string, reason: string, extra: Record<string, unknown> = {}): BridgeError {
  return new BridgeError("PLUGIN_LOAD_FAILED", `Plugin failed to load (${phase}): ${reason}`, {
    details: { phase, reason, ...extra },
  });
}

const safeId = (name: string): string => name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 128) || "_";

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/**
 * Lists plugin folders in load order: each `--plugin` folder, then the children of `--plugins-dir` sorted by
 * name (dot-folders and `node_modules` skipped, symlinks followed). A folder reached twice (same realpath)
 * loads once. A `--plugin` path that is not a folder is still returned, so it is reported as failed.
 */
export async function discoverPlugins(options: { plugins?: readonly string[]; pluginsDir?: string | undefined }): Promise<
  PluginCandidate[]
> {
  const dirs = (options.plugins ?? []).map((p) => resolve(p));
  if (options.pluginsDir !== undefined) {
    const root = resolve(options.pluginsDir);
    if (!(await isDirectory(root))) {
      throw new BridgeError("BAD_REQUEST", `The plugins folder ${root} does not exist or is not a folder`, {
        details: { pluginsDir: root },
      });
    }
    const names = (await readdir(root)).filter((n) => !n.startsWith(".") && n !== "node_modules").sort();
    for (const name of names) {
      if (await isDirectory(join(root, name))) dirs.push(join(root, name));
    }
  }
  const seen = new Set<string>();
  const out: PluginCandidate[] = [];
  for (const dir of dirs) {
    const realDir = await realpath(dir).catch(() => dir);
    if (seen.has(realDir)) continue;
    seen.add(realDir);
    out.push({ dir, realDir, fallbackId: safeId(basename(dir)) });
  }
  return out;
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/** Reads and checks a plugin folder's package.json; throws `PLUGIN_LOAD_FAILED` with `phase: "manifest"`. */
export async function readManifest(candidate: PluginCandidate): Promise<PluginManifest> {
  const fail = (reason: string): BridgeError => loadFailure("manifest", reason, { dir: candidate.dir });
  if (!(await isDirectory(candidate.realDir))) throw fail(`${candidate.dir} is not a folder`);
  const file = join(candidate.realDir, "package.json");
  const info = await stat(file).catch(() => undefined);
  if (info === undefined) throw fail("no package.json in the plugin folder");
  if (info.size > MAX_MANIFEST_BYTES) throw fail(`package.json is larger than ${MAX_MANIFEST_BYTES} bytes`);
  let pkg: unknown;
  try {
    pkg = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw fail(`package.json is not valid JSON (${(error as Error).message})`);
  }
  if (typeof pkg !== "object" || pkg === null || Array.isArray(pkg)) throw fail("package.json is not a JSON object");
  const { name, main, imageEditorBridge } = pkg as Record<string, unknown>;
  if (typeof name !== "string" || name.length === 0) throw fail('package.json has no "name"');
  if (main !== undefined && (typeof main !== "string" || main.length === 0)) throw fail('"main" must be a non-empty string');
  const extra = imageEditorBridge ?? {};
  if (typeof extra !== "object" || extra === null || Array.isArray(extra)) throw fail('"imageEditorBridge" must be an object');
  const { id, config, mcp } = extra as Record<string, unknown>;
  if (id !== undefined && typeof id !== "string") throw fail('"imageEditorBridge.id" must be a string');
  if (mcp !== undefined && typeof mcp !== "boolean") throw fail('"imageEditorBridge.mcp" must be true or false');
  if (config !== undefined && (typeof config !== "object" || config === null || Array.isArray(config))) {
    throw fail('"imageEditorBridge.config" must be an object');
  }
  const entry = resolve(candidate.realDir, (main as string | undefined) ?? "index.js");
  const realEntry = await realpath(entry).catch(() => undefined);
  if (realEntry === undefined) throw fail(`the entry module ${(main as string | undefined) ?? "index.js"} does not exist`);
  if (!isInside(candidate.realDir, realEntry)) throw fail('"main" points outside the plugin folder');
  return {
    name,
    main: realEntry,
    id: id ?? name.replace(/^@[^/]+\//, ""),
    explicitId: id !== undefined,
    mcp: mcp === true,
    config: (config as Record<string, unknown> | undefined) ?? {},
  };
}

/** Why an id cannot be used, or null when it can. */
export function idProblem(id: unknown, reserved: ReadonlySet<string>): string | null {
  if (typeof id !== "string" || !PLUGIN_ID_PATTERN.test(id)) {
    return `id ${JSON.stringify(id)} must match ${PLUGIN_ID_PATTERN.source}`;
  }
  if (reserved.has(id.toLowerCase())) return `id "${id}" is reserved by the bridge`;
  return null;
}
