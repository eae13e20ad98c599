import { bridgeLimits, editorHosts } from "../../src/bridge/editors.js";
import type { BridgeOptions } from "../../src/bridge/options.js";
import { createFilePolicy, type FileAccess } from "../../src/files/index.js";
import type { HostAdapter } from "../../src/hosts/host.js";
import type { IsolatedHost } from "../../src/hosts/isolated/options.js";
import { runTestHook, TEST_HOOKS_ENV } from "../../src/hosts/isolated/test-hooks.js";
import { silentLogger } from "../../src/logger.js";
import { startBridge, type Harness } from "./bridge.js";
import { afterEachFile } from "./cleanups.js";

/** Options a shared editor process can be made for: the ones that reach the editor, all plain data. */
const EDITOR_OPTIONS = new Set(["files", "limits"]);
/** The limits the editor process is made with; the others are the bridge's own, and may differ case by case. */
const EDITOR_LIMITS = /^(editor|maxDocumentPixels$|maxOpenFileBytes$)/;
/** Options only the bridge reads: any may go with a shared editor process. */
const BRIDGE_OPTIONS = new Set([
  "scriptDirs",
  "imports",
  "listen",
  "token",
  "readToken",
  "allowOrigins",
  "allowHosts",
  "publicHealth",
  "trustProxy",
  "countLoopbackPerAddress",
  "methods",
  "plugins",
  "pluginsDir",
  "pluginConfig",
  "pluginIsolation",
  "watchPlugins",
  "checkResults",
  "mcp",
  "webhooks",
]);

/** The editor process the worker's bridges share, what it was made for, and how many bridges use it now. */
let shared: { key: string; host: IsolatedHost; bridges: number } | undefined;

// Kept from one test file to the next of the worker (`isolate: false`), reset as after every case, unless the file
// failed (a case that timed out may have left the editor busy with its call, and the next file would pay for it) or
// left a bridge on it open; the next file's first case then starts a fresh one. It ends with the worker: the
// process exits when its channel to the worker closes.
afterEachFile(({ failed }) => (failed || (shared?.bridges ?? 0) > 0 ? retire() : undefined));

/**
 * Starts a bridge (closed after the test, as `startBridge`'s) on the test worker's one embedded editor process instead
 * of a new one: starting an editor process costs seconds on a loaded two-core machine, and most cases check what a
 * method does, not how the process starts. Closing the bridge resets the editor as a fresh process starts (every
 * document closed, the sample made again; document ids keep increasing, as after any restart) instead of ending it.
 *
 * Options the editor reads other than `files` and `limits` (`host`, `editors`, `embedded`, `logger`, …) get a bridge
 * with its own editor process, as do `files` and editor limits differing from the last ones (the process is made
 * for them); an editor that restarted, or fails to reset, is ended and the next case starts a new one.
 */
export async function startOnSharedEditor(options: BridgeOptions = {}): Promise<Harness> {
  if (!Object.keys(options).every((key) => EDITOR_OPTIONS.has(key) || BRIDGE_OPTIONS.has(key))) return startBridge(options);
  const editorLimits = Object.fromEntries(Object.entries(options.limits ?? {}).filter(([name]) => EDITOR_LIMITS.test(name)));
  const editorOptions: BridgeOptions = { ...(options.files === undefined ? {} : { files: options.files }), limits: editorLimits };
  const key = JSON.stringify([editorOptions, inheritedEnvironment()]);
  if (shared !== undefined && shared.key !== key) await retire();
  shared ??= { key, host: await editorFor(editorOptions), bridges: 0 };
  shared.bridges += 1;
  return startBridge({ ...options, host: resettingOnClose(shared.host) });
}

/**
 * The environment an editor process started now would inherit, less vitest's own variables and the test-hook
 * switch `editorFor` sets: a file that changed a variable the editor reads gets an editor started with it.
 */
function inheritedEnvironment(): [string, string | undefined][] {
  return Object.entries(process.env)
    .filter(([name]) => !name.startsWith("VITEST") && name !== TEST_HOOKS_ENV)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The embedded editor a bridge with `options` runs, made as the bridge makes it. */
async function editorFor(options: BridgeOptions): Promise<IsolatedHost> {
  // The reset is a test hook of the editor process; the process reads the switch from its environment at start.
  process.env[TEST_HOOKS_ENV] = "1";
  const limits = bridgeLimits(options);
  const files: FileAccess = {
    policy: await createFilePolicy(options.files?.roots),
    backupOnOverwrite: options.files?.backupOnOverwrite ?? true,
    maxOpenFileBytes: limits.maxOpenFileBytes,
    allowEditorScripts: options.files?.allowEditorScripts ?? false,
  };
  return editorHosts(options, silentLogger(), files, limits)[0] as IsolatedHost;
}

/** `host`, except that `close()` resets the editor for the next bridge (or ends it when it cannot be reused). */
function resettingOnClose(host: IsolatedHost): HostAdapter {
  let closed = false;
  const close = async (): Promise<void> => {
    if (shared?.host !== host) return host.close();
    if (!closed) shared.bridges -= 1;
    closed = true;
    if (host.restarts > 0) return retire();
    await runTestHook(host, "reset").catch(retire);
  };
  return new Proxy(host, { get: (target, property) => (property === "close" ? close : Reflect.get(target, property, target)) });
}

/** Ends the shared editor process, if any. */
async function retire(): Promise<void> {
  const host = shared?.host;
  shared = undefined;
  await host?.close();
}
