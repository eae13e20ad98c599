import { fork } from "node:child_process";
import { Worker } from "node:worker_threads";
import { overCapReason, residentBytesOf } from "./memory.js";
import { messagesOf, Outbox, type Crossing } from "./outbox.js";
import { PLUGIN_INIT_ENV, type FromWorker, type ToWorker, type WorkerInit } from "./protocol.js";

const MiB = 1024 * 1024;
/** Linux: a child's resident memory can be read from outside it. */
const HAS_PROC = process.platform === "linux";
/** V8 refuses to start with a tiny old generation; below this the cap is raised to it. */
const MIN_HEAP_MB = 16;

/** One running copy of the plugin entry, a worker thread or a child process, seen the same way by the link. */
export interface Runner {
  /** Queues a message; what is posted in one turn of the event loop crosses together at its end. */
  post(message: ToWorker): void;
  /** Stops it now, even while it spins in a synchronous loop. */
  terminate(): Promise<void>;
}

export interface RunnerEvents {
  message(message: FromWorker): void;
  /** It died: the reason, worded for the health's `lastCrash`. */
  died(reason: string): void;
  /** A message could not cross (a value structured clone refuses). */
  refused(message: ToWorker, error: unknown): void;
}

/**
 * Starts the plugin entry: in a worker thread with `resourceLimits` (`worker`), or in a child process over IPC with
 * `serialization: "advanced"` (structured clone, as a worker) and `--max-old-space-size` (`process`). A child's
 * resident memory is read every `init.memorySampleMs` from `/proc` and the child killed past `init.maxMemoryBytes`,
 * as the embedded editor's is: that counts its buffers and native allocations, which V8's cap does not, and works
 * while the child is blocked. A worker's own buffers are counted by its pongs and its sampler (see `WorkerLink`).
 */
export function startRunner(mode: "worker" | "process", entry: string, init: WorkerInit, on: RunnerEvents): Runner {
  const { maxMemoryBytes } = init;
  const heapMb = Math.max(MIN_HEAP_MB, Math.floor(maxMemoryBytes / MiB));
  const memoryNote = `ran out of memory (limits.pluginMaxMemoryBytes: ${maxMemoryBytes} bytes)`;
  if (mode === "worker") {
    const worker = new Worker(entry, { workerData: init, resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    const outbox = new Outbox<ToWorker>((crossing, transfer) => worker.postMessage(crossing, transfer), on.refused);
    worker.on("message", (crossing: Crossing<FromWorker>) => {
      for (const message of messagesOf(crossing)) on.message(message);
    });
    worker.on("error", (error: Error & { code?: string }) =>
      on.died(error.code === "ERR_WORKER_OUT_OF_MEMORY" ? memoryNote : `threw outside any call: ${error.message}`),
    );
    worker.on("exit", (code) => {
      outbox.close();
      on.died(`its worker exited with code ${code}`);
    });
    return {
      post: (message) => outbox.post(message),
      terminate: () => {
        outbox.close();
        return worker.terminate().then(() => undefined);
      },
    };
  }
  const child = fork(entry, [], {
    serialization: "advanced",
    execArgv: [`--max-old-space-size=${heapMb}`],
    env: { ...process.env, [PLUGIN_INIT_ENV]: JSON.stringify(init) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  /** Why the bridge killed it, reported as its end instead of the signal. */
  let killedFor: string | undefined;
  const sampler = HAS_PROC
    ? setInterval(() => {
        const pid = child.pid;
        if (pid === undefined || killedFor !== undefined || child.exitCode !== null || child.signalCode !== null) return;
        void residentBytesOf(pid).then((residentBytes) => {
          if (residentBytes === undefined || residentBytes <= maxMemoryBytes || killedFor !== undefined) return;
          killedFor = overCapReason(maxMemoryBytes, "process", { heapBytes: 0, externalBytes: 0, residentBytes });
          child.kill("SIGKILL");
        });
      }, init.memorySampleMs)
    : undefined;
  sampler?.unref();
  const outbox = new Outbox<ToWorker>((crossing) => {
    if (child.connected) child.send(crossing);
  }, on.refused);
  child.on("message", (crossing) => {
    for (const message of messagesOf(crossing as Crossing<FromWorker>)) on.message(message);
  });
  child.on("error", (error) => on.died(`its process failed: ${error.message}`));
  child.on("exit", (code, signal) => {
    clearInterval(sampler);
    outbox.close();
    // V8 aborts a process past its heap limit (SIGABRT, or 134 through a shell).
    const ended = signal === "SIGABRT" || code === 134 ? memoryNote : signal !== null ? `its process was killed (${signal})` : `its process exited with code ${code}`;
    on.died(killedFor ?? ended);
  });
  return {
    post: (message) => outbox.post(message),
    terminate: async () => {
      outbox.close();
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}
