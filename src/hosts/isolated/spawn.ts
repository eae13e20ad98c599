import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { setPriority } from "node:os";
import { join } from "node:path";
import { packageRoot } from "../../package-root.js";
import { BridgeError } from "../../protocol/index.js";
import { killOnExit } from "../_internal/exit-kill.js";
import { EDITOR_HEAP_SHARE, EDITOR_MIN_HEAP_BYTES, EDITOR_NICENESS } from "./limits.js";
import { PDEATHSIG_ENV } from "./protocol.js";

const MiB = 1024 * 1024;

/** The shell that applies the process limit; absent on Windows, where only the RSS sampler and V8's cap apply. */
const SHELL = "/bin/sh";

/**
 * Run by `/bin/sh -c` with the node binary as `$0` and its arguments as `$@`. `ulimit -d` sets `RLIMIT_DATA` (KiB):
 * since Linux 4.7 it counts malloc'd memory and private writable mappings, so sharp/libvips and ArrayBuffers are
 * capped with the JS heap; V8's `PROT_NONE` reservations and WebAssembly guard regions are not counted until used.
 * Should the limit already be lower (a stricter hard limit), that one stays. `setpriv --pdeathsig KILL` (util-linux)
 * makes the kernel kill the editor when the bridge dies, even while the editor is stuck and cannot read its channel
 * (elsewhere the editor watches its parent from a thread of its own).
 * `exec` keeps one process: the pid the bridge holds is the editor's.
 */
function wrapperScript(limitKiB: number): string {
  return (
    `ulimit -d ${limitKiB} 2>/dev/null; ` +
    `if command -v setpriv >/dev/null 2>&1; then export ${PDEATHSIG_ENV}=1; exec setpriv --pdeathsig KILL -- "$0" "$@"; fi; ` +
    `exec "$0" "$@"`
  );
}

/**
 * Where the editor process's JavaScript is, in the package at `root`: the one-file bundle the build makes
 * (`dist/hosts/isolated/editor/child.js`, which loads in some 0.6 of the CPU time), else the compiled
 * `dist/hosts/isolated/child.js`. The same whether this module runs from `dist/`, from a bundle, or from `src/`
 * (tests and vitest load TypeScript).
 *
 * @throws BridgeError `HOST_UNAVAILABLE` naming the missing file and how to build it.
 */
export function resolveChildEntry(root: string = packageRoot()): string {
  const dir = join(root, "dist", "hosts", "isolated");
  const bundle = join(dir, "editor", "child.js");
  if (existsSync(bundle)) return bundle;
  const entry = join(dir, "child.js");
  if (!existsSync(entry)) {
    throw new BridgeError("HOST_UNAVAILABLE", `The editor process entry ${entry} is missing; build it with \`npm run build\``, {
      details: { entry },
    });
  }
  return entry;
}

/** How an editor process is started. */
export interface SpawnOptions {
  /** The child's script (see {@link resolveChildEntry}). */
  readonly entry: string;
  /** Node flags for the child, after the heap flag. */
  readonly execArgv: readonly string[];
  /** The cap: `RLIMIT_DATA`, and `EDITOR_HEAP_SHARE` of it for V8's old space. */
  readonly maxMemoryBytes: number;
  /** Apply `RLIMIT_DATA` through `/bin/sh` (when it exists). */
  readonly rlimit: boolean;
  /** Variables added to the bridge's environment for the child. */
  readonly env?: Readonly<Record<string, string>> | undefined;
}

/** V8's old-space size for a cap, in MiB. */
export function heapMiB(maxMemoryBytes: number): number {
  return Math.floor(Math.max(EDITOR_MIN_HEAP_BYTES, maxMemoryBytes * EDITOR_HEAP_SHARE) / MiB);
}

/**
 * Starts an editor process: stdin ignored, stdout inherited, stderr piped (forwarded by the caller, and its tail
 * names the cause of a crash), fd 3 the message channel (a socket pair on POSIX), fd 4 the ids of cancelled calls (`cancel-flags.ts`). Never Node's `ipc` channel.
 */
export function spawnEditorProcess(options: SpawnOptions): ChildProcess {
  const nodeArgs = [`--max-old-space-size=${heapMiB(options.maxMemoryBytes)}`, ...options.execArgv, options.entry];
  const spawnOptions = {
    stdio: ["ignore", "inherit", "pipe", "pipe", "pipe"] as ("ignore" | "inherit" | "pipe")[],
    windowsHide: true,
    env: { ...process.env, ...options.env },
  };
  const child =
    options.rlimit && existsSync(SHELL)
      ? spawn(SHELL, ["-c", wrapperScript(Math.floor(options.maxMemoryBytes / 1024)), process.execPath, ...nodeArgs], spawnOptions)
      : spawn(process.execPath, nodeArgs, spawnOptions);
  // No orphans, ever: an editor process still running when the bridge's process exits is killed with it.
  const forget = killOnExit(() => child.kill("SIGKILL"));
  lowerPriority(child.pid);
  child.once("exit", forget);
  child.once("error", forget);
  return child;
}

/** Runs the editor below the bridge's priority; a system that refuses it leaves the editor at normal priority. */
function lowerPriority(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    setPriority(pid, EDITOR_NICENESS);
  } catch {
    // Not permitted here: the editor competes at the bridge's priority.
  }
}

/** How an editor process ended. */
export interface ExitFacts {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Why the bridge killed it, when it did. */
  readonly killedFor: string | undefined;
  /** The end of what it wrote to stderr. */
  readonly stderrTail: string;
}

/**
 * What V8 writes when the JavaScript heap meets its own cap (`--max-old-space-size`). Which of them depends on the
 * machine's speed: "Reached heap limit" when a collection cannot make room, "Ineffective mark-compacts near heap
 * limit" when the last collections took most of the time and freed little (measured in time, so a loaded machine
 * gets it first), "young object promotion failed" when the old space has no room for what a scavenge promotes.
 */
const V8_HEAP_LIMIT = /Reached heap limit|Ineffective mark-compacts near heap limit|young object promotion failed/;

/** The cause of an editor's end, as `lost$` and `editor:restarted` report it. */
export function describeExit({ code, signal, killedFor, stderrTail }: ExitFacts): string {
  if (killedFor !== undefined) return killedFor;
  const how = signal !== null ? `signal ${signal}` : `exit code ${code}`;
  // Any other failed allocation ("Committing semi space failed", `std::bad_alloc`) is memory the OS refused, under
  // `RLIMIT_DATA` or not.
  if (V8_HEAP_LIMIT.test(stderrTail)) return `editor ran out of memory (JavaScript heap limit; ${how})`;
  if (/out of memory|bad_alloc|allocation failed|Cannot allocate memory/i.test(stderrTail)) {
    return `editor ran out of memory (an allocation was refused; ${how})`;
  }
  if (signal === "SIGKILL") return "editor was killed from outside the bridge (SIGKILL; the system's out-of-memory killer?)";
  if (signal !== null) return `editor crashed: signal ${signal}`;
  // A shell reports a SIGABRT as 134, which is how Node ends on a fatal out-of-memory.
  if (code === 134) return "editor ran out of memory (exit code 134)";
  return `editor exited unexpectedly with exit code ${code}`;
}
