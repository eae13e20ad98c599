import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Duplex } from "node:stream";
import { cancelWriter } from "./cancel-flags.js";
import { Channel } from "./channel.js";
import { EDITOR_MEMORY_SAMPLE_MS, EDITOR_STDERR_TAIL_BYTES } from "./limits.js";
import type { ChildMessage, ParentMessage } from "./protocol.js";
import { killOnExit } from "../_internal/exit-kill.js";
import { describeExit, spawnEditorProcess, type SpawnOptions } from "./spawn.js";
import { createSpillFolder, removeSpillFolder, SPILL_DIR_ENV } from "./spill.js";

const MiB = 1024 * 1024;

/** Whether `/proc/<pid>/status` can be read on this platform (Linux). */
const HAS_PROC = existsSync("/proc/self/status");

/** What an editor process reports to its owner. */
export interface EditorProcessHandlers {
  message(message: ChildMessage): void;
  /** The process is gone; `reason` names the cause. Called once. */
  exit(reason: string): void;
}

/** Options of one editor process. */
export interface EditorProcessOptions extends SpawnOptions {
  /** Forward the editor's stderr to the bridge's (its tail is kept either way to name a crash's cause). */
  readonly forwardStderr: boolean;
}

/**
 * One running editor process and its channel: sends messages, samples its resident memory against the cap, kills
 * it with a recorded reason, and tells its owner once, with the cause, when it is gone.
 */
export class EditorProcess {
  private readonly child: ChildProcess;
  private readonly channel: Channel<ChildMessage, ParentMessage>;
  private readonly sampler: NodeJS.Timeout | undefined;
  private killedFor: string | undefined;
  private stderrTail = "";
  private gone = false;
  private readonly exited: Promise<void>;
  private readonly spillDir: string | undefined;
  private readonly forgetSpill: () => void;
  private readonly writeCancel: (id: number) => void;
  /** When the editor last sent anything (`performance.now()`): a heartbeat, an answer, a log line. */
  private lastHeardAt = performance.now();

  constructor(
    private readonly options: EditorProcessOptions,
    private readonly handlers: EditorProcessHandlers,
  ) {
    // Large blobs from the editor come through this folder in shared memory; removed when the process ends.
    this.spillDir = createSpillFolder();
    const spillDir = this.spillDir;
    this.forgetSpill = spillDir === undefined ? () => {} : killOnExit(() => removeSpillFolder(spillDir));
    this.child = spawnEditorProcess({ ...options, env: spillDir === undefined ? {} : { [SPILL_DIR_ENV]: spillDir } });
    this.channel = new Channel<ChildMessage, ParentMessage>(
      this.child.stdio[3] as Duplex,
      {
        message: (message) => handlers.message(message),
        error: (error) => this.kill(`editor broke the message protocol: ${error.message}`),
        // The channel closes when the process ends; the exit itself reports it, with the cause.
        close: () => {},
      },
      { dir: spillDir },
    );
    // Any bytes count as a sign of life, read as they arrive (before a message waiting on a spilled blob is delivered).
    (this.child.stdio[3] as Duplex).on("data", () => {
      this.lastHeardAt = performance.now();
    });
    this.writeCancel = cancelWriter(this.child.stdio[4] as Duplex | null);
    this.child.stderr?.on("data", (chunk: Buffer) => this.onStderr(chunk));
    this.exited = new Promise((resolve) => {
      // `close` comes after the exit and after stderr is drained, so the tail is complete.
      this.child.once("close", (code: number | null, signal: NodeJS.Signals | null) => {
        this.finish(describeExit({ code, signal, killedFor: this.killedFor, stderrTail: this.stderrTail }));
        resolve();
      });
      this.child.once("error", (error) => {
        // Spawning failed: no `close` may follow.
        if (this.child.pid !== undefined) return;
        this.finish(`editor could not be started: ${error.message}`);
        resolve();
      });
    });
    this.sampler = HAS_PROC ? setInterval(() => void this.sampleMemory(), EDITOR_MEMORY_SAMPLE_MS) : undefined;
    this.sampler?.unref();
  }

  get pid(): number | undefined {
    return this.gone ? undefined : this.child.pid;
  }

  get alive(): boolean {
    return !this.gone;
  }

  /** Milliseconds since the editor last sent anything (its main thread beats every `EDITOR_HEARTBEAT_MS`). */
  get silentForMs(): number {
    return performance.now() - this.lastHeardAt;
  }

  send(message: ParentMessage): void {
    if (!this.gone) this.channel.send(message);
  }

  /**
   * Tells the editor to stop a call: a `cancel` message, seen between its awaits, and the call's id on the cancel
   * pipe, seen by its checkpoints even while its thread is busy in a loop.
   */
  cancel(id: number): void {
    if (this.gone) return;
    this.writeCancel(id);
    this.channel.send({ kind: "cancel", id });
  }

  /** Kills the process at once (SIGKILL); `reason` becomes the cause reported for its end. */
  kill(reason: string): void {
    if (this.gone || this.killedFor !== undefined) return;
    this.killedFor = reason;
    this.child.kill("SIGKILL");
  }

  /** Asks the process to close, waits up to `graceMs` for it to exit, then kills it. */
  async close(graceMs: number): Promise<void> {
    if (this.gone) return;
    this.send({ kind: "close" });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([this.exited, timedOut]);
    clearTimeout(timer);
    this.kill("editor closed (it did not exit within the close grace)");
    await this.exited;
  }

  private finish(reason: string): void {
    if (this.gone) return;
    this.gone = true;
    clearInterval(this.sampler);
    this.channel.destroy();
    if (this.spillDir !== undefined) removeSpillFolder(this.spillDir);
    this.forgetSpill();
    this.handlers.exit(reason);
  }

  private onStderr(chunk: Buffer): void {
    if (this.options.forwardStderr) process.stderr.write(chunk);
    this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-EDITOR_STDERR_TAIL_BYTES);
  }

  /** Kills the process once its resident memory passes the cap (what `RLIMIT_DATA` does not count). */
  private async sampleMemory(): Promise<void> {
    const pid = this.child.pid;
    if (this.gone || pid === undefined) return;
    let status: string;
    try {
      status = await readFile(`/proc/${pid}/status`, "utf8");
    } catch {
      return; // exiting
    }
    const kiB = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? 0);
    const rss = kiB * 1024;
    if (rss > this.options.maxMemoryBytes) {
      this.kill(
        `editor exceeded its memory cap (resident ${Math.round(rss / MiB)} MiB > ${Math.round(this.options.maxMemoryBytes / MiB)} MiB)`,
      );
    }
  }
}
