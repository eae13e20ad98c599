import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { basename, isAbsolute, join, relative, resolve } from "node:path";
import { satisfies, validRange } from "semver";
import { BridgeError } from "../protocol/index.js";
import { PACKAGE } from "../version.js";

/** Plugin ids: URL- and log-safe, bounded. */
export const PLUGIN_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
/** Largest package.json read, so a hostile folder cannot make discovery read a huge file. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;
/** Most entries in `imageEditorBridge.requires`: a real plugin needs a few; a bound keeps ordering cheap. */
export const MAX_PLUGIN_REQUIRES = 64;
/** Longest `imageEditorBridge.bridge` range, so a hostile manifest cannot hand the range parser a huge string. */
export const MAX_BRIDGE_RANGE_LENGTH = 256;

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
  /** `imageEditorBridge.isolation`: where its code runs; undefined leaves it to the bridge (a worker by default). */
  readonly isolation?: "worker" | "process" | "none" | undefined;
  /** `imageEditorBridge.requires`: ids of plugins that must be loaded first. @default [] */
  readonly requires: readonly string[];
  /** `imageEditorBridge.bridge`: the bridge versions the plugin supports (a semver range), checked at load. */
  readonly bridge: string | undefined;
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
  const { id, config, mcp, requires, bridge, isolation } = extra as Record<string, unknown>;
  if (isolation !== undefined && isolation !== "worker" && isolation !== "process" && isolation !== "none") {
    throw fail('"imageEditorBridge.isolation" must be "worker", "process" or "none"');
  }
  if (id !== undefined && typeof id !== "string") throw fail('"imageEditorBridge.id" must be a string');
  if (mcp !== undefined && typeof mcp !== "boolean") throw fail('"imageEditorBridge.mcp" must be true or false');
  if (config !== undefined && (typeof config !== "object" || config === null || Array.isArray(config))) {
    throw fail('"imageEditorBridge.config" must be an object');
  }
  const required = checkRequires(requires, fail);
  checkBridgeRange(bridge, PACKAGE.version, candidate.dir);
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
    isolation,
    config: (config as Record<string, unknown> | undefined) ?? {},
    requires: required,
    bridge: bridge as string | undefined,
  };
}

/** Checks `imageEditorBridge.requires`: an array of distinct plugin ids. */
function checkRequires(requires: unknown, fail: (reason: string) => BridgeError): string[] {
  if (requires === undefined) return [];
  if (!Array.isArray(requires)) throw fail('"imageEditorBridge.requires" must be an array of plugin ids');
  if (requires.length > MAX_PLUGIN_REQUIRES) throw fail(`"imageEditorBridge.requires" lists more than ${MAX_PLUGIN_REQUIRES} plugins`);
  for (const entry of requires) {
    if (typeof entry !== "string" || !PLUGIN_ID_PATTERN.test(entry)) {
      throw fail(`"imageEditorBridge.requires" entry ${JSON.stringify(entry)} is not a plugin id (${PLUGIN_ID_PATTERN.source})`);
    }
  }
  if (new Set(requires).size !== requires.length) throw fail('"imageEditorBridge.requires" names a plugin twice');
  return requires as string[];
}

/**
 * Checks `imageEditorBridge.bridge` against this bridge's package version: a mismatch fails the load now, not at
 * the first call that needs something this version lacks. Prereleases of this version count as inside a range.
 */
export function checkBridgeRange(range: unknown, version: string, dir: string): void {
  if (range === undefined) return;
  const invalid = (why: string): BridgeError => loadFailure("manifest", why, { dir, field: "imageEditorBridge.bridge" });
  if (typeof range !== "string" || range.trim().length === 0) throw invalid('"imageEditorBridge.bridge" must be a semver range such as ">=0.1 <2"');
  if (range.length > MAX_BRIDGE_RANGE_LENGTH) throw invalid(`"imageEditorBridge.bridge" is longer than ${MAX_BRIDGE_RANGE_LENGTH} characters`);
  if (validRange(range) === null) throw invalid(`"imageEditorBridge.bridge" ${JSON.stringify(range)} is not a valid semver range`);
  if (!satisfies(version, range, { includePrerelease: true })) {
    throw loadFailure("manifest", `the plugin supports bridge versions ${range}; this bridge is ${version}`, {
      dir,
      field: "imageEditorBridge.bridge",
      range,
      version,
    });
  }
}

/** Why a plugin cannot load for one of its requirements: not installed, failed itself, or part of a cycle. */
export type RequirementProblem = "missing" | "failed" | "cycle";

/** `PLUGIN_LOAD_FAILED` with `phase: "requires"`: the requirement, and `reason` one of {@link RequirementProblem}. */
export function requirementFailure(
  requirement: string,
  reason: RequirementProblem,
  extra: Record<string, unknown> = {},
): BridgeError {
  const why =
    reason === "missing"
      ? `it requires the plugin "${requirement}", which is not installed`
      : reason === "failed"
        ? `it requires the plugin "${requirement}", which failed to load`
        : `it requires the plugin "${requirement}", which requires it back (a cycle)`;
  return new BridgeError("PLUGIN_LOAD_FAILED", `Plugin failed to load (requires): ${why}`, {
    details: { phase: "requires", requirement, reason, ...extra },
  });
}

/** A candidate with what its manifest says, read before anything loads (undefined: unreadable, fails at load). */
export interface PlannedPlugin {
  readonly candidate: PluginCandidate;
  readonly manifest: PluginManifest | undefined;
  /** Set when the plugin is on a `requires` cycle: the ids of the cycle, in order. */
  readonly cycle?: readonly string[];
}

/**
 * Orders plugins so each comes after the plugins it requires, otherwise keeping discovery order (a stable
 * depth-first sort). Requirements are matched by manifest id. Every member of a cycle is marked with it; the
 * loader fails them with reason "cycle" (and, through "failed", whatever requires them).
 */
export function orderByRequires(planned: readonly PlannedPlugin[]): PlannedPlugin[] {
  const byId = new Map<string, number>();
  planned.forEach((p, i) => {
    if (p.manifest !== undefined && !byId.has(p.manifest.id)) byId.set(p.manifest.id, i);
  });
  const cycles = new Map<number, string[]>();
  const state: Array<"new" | "visiting" | "done"> = planned.map(() => "new");
  const stack: number[] = [];
  const order: number[] = [];
  const visit = (i: number): void => {
    if (state[i] === "done") return;
    if (state[i] === "visiting") {
      const members = stack.slice(stack.indexOf(i));
      const ids = members.map((m) => planned[m]!.manifest!.id);
      for (const m of members) cycles.set(m, ids);
      return;
    }
    state[i] = "visiting";
    stack.push(i);
    for (const requirement of planned[i]!.manifest?.requires ?? []) {
      const j = byId.get(requirement);
      if (j !== undefined) visit(j);
    }
    stack.pop();
    state[i] = "done";
    order.push(i);
  };
  for (let i = 0; i < planned.length; i++) visit(i);
  return order.map((i) => {
    const cycle = cycles.get(i);
    return cycle === undefined ? planned[i]! : { ...planned[i]!, cycle };
  });
}

/** Why an id cannot be used, or null when it can. */
export function idProblem(id: unknown, reserved: ReadonlySet<string>): string | null {
  if (typeof id !== "string" || !PLUGIN_ID_PATTERN.test(id)) {
    return `id ${JSON.stringify(id)} must match ${PLUGIN_ID_PATTERN.source}`;
  }
  if (reserved.has(id.toLowerCase())) return `id "${id}" is reserved by the bridge`;
  return null;
}
