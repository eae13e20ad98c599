/*
 * What an isolated plugin holds in memory, measured so `limits.pluginMaxMemoryBytes` caps all of it: V8's heap cap
 * (`resourceLimits`, `--max-old-space-size`) does not count `Buffer`s and other array buffers, which live outside
 * the heap and, in a worker thread, inside the bridge's own process.
 */
import { readFile } from "node:fs/promises";

const MiB = 1024 * 1024;

/** One reading of a plugin's memory, taken where it runs. */
export interface PluginMemory {
  /** V8 heap in use by its isolate. */
  readonly heapBytes: number;
  /** Memory outside the heap that its isolate holds: `Buffer`s and other array buffers, native objects. */
  readonly externalBytes: number;
  /** Resident memory of the whole process it runs in (for a worker thread, the bridge's process). */
  readonly residentBytes: number;
}

/** Reads the calling thread's own figures; in a worker thread heap and external memory are that worker's alone. */
export function measureOwnMemory(): PluginMemory {
  const usage = process.memoryUsage();
  return { heapBytes: usage.heapUsed, externalBytes: usage.external, residentBytes: usage.rss };
}

/**
 * What counts against the cap: a worker thread shares the bridge's process, so its own heap and external memory; a
 * child process is a process of its own, so all of its resident memory (native modules included).
 */
export function heldBytes(mode: "worker" | "process", memory: PluginMemory): number {
  return mode === "worker" ? memory.heapBytes + memory.externalBytes : memory.residentBytes;
}

/** The crash reason past the cap; it starts as V8's own out-of-memory reason does, so one pattern reads both. */
export function overCapReason(maxMemoryBytes: number, mode: "worker" | "process", memory: PluginMemory): string {
  const held =
    mode === "worker"
      ? `it held ${mb(memory.heapBytes + memory.externalBytes)} (heap ${mb(memory.heapBytes)}, buffers and other external memory ${mb(memory.externalBytes)})`
      : `its process was resident at ${mb(memory.residentBytes)}`;
  return `ran out of memory (limits.pluginMaxMemoryBytes: ${maxMemoryBytes} bytes): ${held}`;
}

/** Resident memory of a process by its `/proc` status, or undefined where it cannot be read (gone, not Linux). */
export async function residentBytesOf(pid: number): Promise<number | undefined> {
  let status: string;
  try {
    status = await readFile(`/proc/${pid}/status`, "utf8");
  } catch {
    return undefined;
  }
  const kiB = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  return kiB === undefined ? undefined : Number(kiB) * 1024;
}

function mb(bytes: number): string {
  return `${Math.round(bytes / MiB)} MiB`;
}
