import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { killOnExit } from "../_internal/exit-kill.js";
import type { Logger } from "../../logger.js";
import { BridgeError } from "../../protocol/index.js";
import {
  DEFAULT_GIMP_START_TIMEOUT_MS,
  GIMP_IDENTITY_TIMEOUT_MS,
  GIMP_PORT_ATTEMPTS,
  GIMP_QUIT_GRACE_MS,
  GIMP_TILE_CACHE,
  READINESS_POLL_MS,
} from "./limits.js";
import { claimPort, releasePort } from "./ports.js";
import { gimpStartCacheDir, keepGimpStart, seedGimpStart } from "./start-cache.js";
import { lit, parseSexp } from "./scheme.js";
import { canConnect, exchange, type Endpoint } from "./wire.js";

/** Options of {@link GimpSupervisor}. */
export interface GimpSupervisorOptions {
  /** The console binary. @default "gimp-console-2.10" */
  readonly binary?: string | undefined;
  /** How long GIMP may take to open its Script-Fu port. @default DEFAULT_GIMP_START_TIMEOUT_MS */
  readonly startTimeoutMs?: number | undefined;
  /**
   * The folder of the start files GIMPs share (the plug-in registry, babl's conversion table), so that a GIMP in a
   * new profile starts as fast as in a used one; `false` keeps none. @default the user's cache folder
   * (`$XDG_CACHE_HOME` or `~/.cache`) `/image-editor-bridge/gimp/<install>`; docs/gimp.md, "Start files"
   */
  readonly startCache?: string | false | undefined;
  readonly logger?: Logger | undefined;
}

/**
 * Runs one headless GIMP with its Script-Fu server on loopback, in a private profile (temp dir, capped tile
 * cache, C locale) and its own process group. `start()` after a crash or `kill()` starts a fresh GIMP in the same
 * profile (a warm start, ~1 s). The profile is removed by `stop()`.
 *
 * @example
 * const gimp = new GimpSupervisor({ binary: "gimp-console-2.10" });
 * const endpoint = await gimp.start();
 * await gimp.stop();
 */
export class GimpSupervisor {
  /** Drops this supervisor's kill from the process-exit kills once its GIMP is gone. */
  private forgetExitKill: () => void = () => {};
  private child: ChildProcess | undefined;
  private exited: Promise<void> | undefined;
  private root: string | undefined;
  /** The folder of start files this supervisor's GIMPs share with later ones (`start-cache.ts`), if any. */
  private startCache: string | undefined;
  private current: Endpoint | undefined;
  private starting: Promise<Endpoint> | undefined;
  private readonly binary: string;
  private readonly startTimeoutMs: number;
  /** Called when GIMP exits without being told to (crash, killed from outside). */
  onUnexpectedExit: ((reason: string) => void) | undefined;
  private expectingExit = false;

  constructor(private readonly options: GimpSupervisorOptions = {}) {
    this.binary = options.binary ?? "gimp-console-2.10";
    this.startTimeoutMs = options.startTimeoutMs ?? DEFAULT_GIMP_START_TIMEOUT_MS;
  }

  /** The running GIMP's Script-Fu endpoint, if any. */
  get endpoint(): Endpoint | undefined {
    return this.current;
  }

  /** Process id of the running GIMP (its process group id too). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** A private directory for exchange files (replies, exports, imports), inside the profile's temp root. */
  async workDir(): Promise<string> {
    const root = await this.ensureRoot();
    const dir = join(root, "io");
    await mkdir(dir, { recursive: true });
    return dir;
  }

  /**
   * The private folder of recovery copies, inside the profile's temp root: a restart keeps it, `stop()` removes it.
   */
  async recoveryDir(): Promise<string> {
    const root = await this.ensureRoot();
    const dir = join(root, "recovery");
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  /** Starts GIMP unless it runs; resolves with its endpoint once the Script-Fu port accepts connections. */
  start(): Promise<Endpoint> {
    if (this.current && this.child) return Promise.resolve(this.current);
    this.starting ??= this.launch().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async ensureRoot(): Promise<string> {
    if (this.root) return this.root;
    const root = await mkdtemp(join(tmpdir(), "bridge-gimp-"));
    const profile = join(root, "profile");
    // Writable data folders silence GIMP's "missing folder" warnings.
    for (const sub of ["brushes", "gradients", "patterns", "palettes"]) await mkdir(join(profile, sub), { recursive: true });
    await mkdir(join(root, "cache"), { recursive: true });
    await mkdir(join(root, "swap"), { recursive: true });
    await writeFile(join(profile, "gimprc"), `(tile-cache-size ${GIMP_TILE_CACHE})\n(swap-path ${lit(join(root, "swap"))})\n`);
    this.startCache = this.options.startCache === false ? undefined : (this.options.startCache ?? (await gimpStartCacheDir(this.binary)));
    if (this.startCache !== undefined) await seedGimpStart(this.startCache, root);
    this.root = root;
    return root;
  }

  /**
   * Starts GIMP on a port of its own. A port another process took between our pick and GIMP's bind is found out
   * (GIMP reports the failed bind, or the server that answers is not ours) and GIMP is started again on another.
   */
  private async launch(): Promise<Endpoint> {
    const root = await this.ensureRoot();
    for (let attempt = 1; ; attempt++) {
      const port = await claimPort();
      const endpoint = await this.launchOn(root, port);
      if (endpoint) return endpoint;
      if (attempt >= GIMP_PORT_ATTEMPTS) {
        throw new BridgeError("HOST_UNAVAILABLE", `GIMP could not get a Script-Fu port of its own in ${attempt} attempts`, {
          details: { binary: this.binary },
        });
      }
      this.options.logger?.warn({ actor: "host", editor: "gimp", port }, "another server holds GIMP's Script-Fu port; trying another");
    }
  }

  /** Starts GIMP with its server on `port`: its endpoint once ready, or undefined when the port is someone else's. */
  private async launchOn(root: string, port: number): Promise<Endpoint | undefined> {
    const endpoint: Endpoint = { host: "127.0.0.1", port };
    const run = this.spawnGimp(root, port);
    const deadline = Date.now() + this.startTimeoutMs;
    while (run.exitReason === undefined) {
      // A failed bind leaves GIMP running without a server (measured): the port is someone else's.
      if (BIND_FAILED.test(run.stderr)) break;
      if (await canConnect(endpoint)) {
        if (!(await isServedBy(endpoint, join(root, "profile")))) break;
        this.current = endpoint;
        if (this.startCache !== undefined) await keepGimpStart(this.startCache, root);
        this.options.logger?.info({ actor: "host", editor: "gimp", pid: run.child.pid, port }, "GIMP started");
        return endpoint;
      }
      if (Date.now() > deadline) {
        await this.kill();
        throw new BridgeError("HOST_UNAVAILABLE", `GIMP did not open its Script-Fu port within ${this.startTimeoutMs} ms`, {
          details: { binary: this.binary, stderr: run.stderr.slice(-500) },
        });
      }
      await new Promise((resolve) => setTimeout(resolve, READINESS_POLL_MS));
    }
    if (run.exitReason === undefined) {
      await this.kill();
      return undefined;
    }
    throw new BridgeError("HOST_UNAVAILABLE", `GIMP did not start: ${run.exitReason}`, {
      details: { binary: this.binary, stderr: run.stderr.slice(-500) },
    });
  }

  /** Spawns GIMP in its own process group; the port is released and the group killed when it exits. */
  private spawnGimp(root: string, port: number): GimpRun {
    // The server log records every script in full: keep it in the private temp dir.
    const serverCall = `(plug-in-script-fu-server RUN-NONINTERACTIVE "127.0.0.1" ${port} ${lit(join(root, "server.log"))})`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      LC_ALL: "C.UTF-8",
      GIMP2_DIRECTORY: join(root, "profile"),
      XDG_CACHE_HOME: join(root, "cache"),
    };
    delete env["DISPLAY"];
    const child = spawn(this.binary, ["-i", "--no-data", "--no-splash", "-b", serverCall], {
      env,
      stdio: ["ignore", "ignore", "pipe"],
      detached: true, // own process group: kill(-pid) reaches the script-fu children too
    });
    this.child = child;
    this.expectingExit = false;
    // An exiting process never leaves a GIMP behind.
    this.forgetExitKill = killOnExit(() => this.killNow());
    const run: GimpRun = { child, stderr: "", exitReason: undefined };
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (text: string) => {
      run.stderr = (run.stderr + text).slice(-2_000);
    });
    this.exited = new Promise<void>((resolve) => {
      const done = (reason: string): void => {
        if (run.exitReason !== undefined) return;
        run.exitReason = reason;
        releasePort(port);
        if (this.child === child) this.forget(child, reason, run.stderr);
        resolve();
      };
      child.once("error", (error) => done(`could not start ${this.binary}: ${error.message}`));
      child.once("exit", (code, signal) => done(signal ? `GIMP was killed by ${signal}` : `GIMP exited with status ${code}`));
    });
    return run;
  }

  /** After the current GIMP exited: no endpoint any more, no orphans, and a report unless we asked for it. */
  private forget(child: ChildProcess, reason: string, stderr: string): void {
    this.child = undefined;
    this.current = undefined;
    this.forgetExitKill();
    // The group may still hold script-fu children: never leave them behind.
    killGroup(child.pid, "SIGKILL");
    if (!this.expectingExit) {
      this.options.logger?.warn({ actor: "host", editor: "gimp", reason, stderr: stderr.slice(-500) }, "GIMP exited");
      this.onUnexpectedExit?.(reason);
    }
  }

  /** Kills the whole process group at once (a stuck GIMP cannot be asked to quit) and waits for the exit. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.expectingExit = true;
    killGroup(child.pid, "SIGKILL");
    await this.exited;
  }

  /** Synchronous last resort for process exit. */
  killNow(): void {
    if (this.child) {
      this.expectingExit = true;
      killGroup(this.child.pid, "SIGKILL");
    }
  }

  /** Asks GIMP to quit, kills the group if it lingers, and removes the private profile. Idempotent. */
  async stop(): Promise<void> {
    if (this.starting) await this.starting.catch(() => {});
    const child = this.child;
    if (child) {
      this.expectingExit = true;
      const endpoint = this.current;
      // `(gimp-quit 0)` closes the connection with no reply: the exchange ends in a closed-socket error.
      if (endpoint) await exchange(endpoint, "(gimp-quit 0)", AbortSignal.timeout(GIMP_QUIT_GRACE_MS)).catch(() => {});
      const timer = setTimeout(() => killGroup(child.pid, "SIGTERM"), GIMP_QUIT_GRACE_MS);
      const hard = setTimeout(() => killGroup(child.pid, "SIGKILL"), 2 * GIMP_QUIT_GRACE_MS);
      await this.exited;
      clearTimeout(timer);
      clearTimeout(hard);
    }
    if (this.root) {
      // babl writes its table when GIMP quits.
      if (this.startCache !== undefined) await keepGimpStart(this.startCache, this.root);
      await rm(this.root, { recursive: true, force: true }).catch(() => {});
      this.root = undefined;
    }
  }
}

/** What GIMP said on stderr when its Script-Fu server could not bind its port. */
const BIND_FAILED = /\bbind: /;

/** One GIMP process as its start sees it. */
interface GimpRun {
  readonly child: ChildProcess;
  /** The end of its stderr (the last 2 000 characters). */
  stderr: string;
  /** Why it exited, once it has. */
  exitReason: string | undefined;
}

/**
 * Whether the Script-Fu server at `endpoint` is the GIMP of this profile: another process may have taken the port
 * we picked, and a GIMP that failed to bind keeps running, so a successful connect alone proves nothing.
 */
async function isServedBy(endpoint: Endpoint, profile: string): Promise<boolean> {
  try {
    const reply = await exchange(endpoint, "gimp-directory", AbortSignal.timeout(GIMP_IDENTITY_TIMEOUT_MS));
    return !reply.error && parseSexp(reply.body) === profile;
  } catch {
    return false;
  }
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}
