import type { Writable } from "node:stream";
import { Worker } from "node:worker_threads";
import { CANCEL_READER_AFTER_MS } from "./limits.js";

/*
 * Cancellation that reaches an editor whose thread is busy. The editor process runs a call's loops on its only
 * JavaScript thread, so a `cancel` message on the channel waits until the loop ends. Beside the channel, the bridge
 * writes the ids of cancelled calls to a pipe (fd 4) that a small thread of the editor reads; that thread marks
 * them in memory shared with the editor's thread (`SharedArrayBuffer` + `Atomics`), and the loops' checkpoints read
 * the mark between rows. The thread starts the first time a call has been busy for `CANCEL_READER_AFTER_MS`.
 */

/** The pipe's file descriptor in the editor process: the fifth entry of the parent's `stdio`. */
export const CANCEL_FD = 4;

/** Slots of the shared marks; a call id marks slot `id % CANCEL_SLOTS`, so this bounds calls running at once. */
const CANCEL_SLOTS = 4096;

/** Bytes per cancelled id on the pipe: an unsigned 32-bit little-endian integer. */
const ID_BYTES = 4;

/** Call ids the pipe can carry. */
const MAX_CALL_ID = 0xffff_ffff;

/** The bridge's side: writes a cancelled call's id to the editor's pipe. A closed pipe (the editor is gone) is ignored. */
export function cancelWriter(pipe: Writable | null | undefined): (id: number) => void {
  pipe?.on("error", () => {});
  return (id) => {
    if (pipe === null || pipe === undefined || pipe.destroyed || id > MAX_CALL_ID) return;
    const bytes = Buffer.allocUnsafe(ID_BYTES);
    bytes.writeUInt32LE(id);
    pipe.write(bytes);
  };
}

/** The editor's side: whether a call was cancelled, answered from the shared marks without a message. */
export interface CancelFlags {
  /** Whether call `id`, running since `since` (`performance.now()`), was cancelled. */
  cancelled(id: number, since: number): boolean;
}

/**
 * Answers from the marks of the thread that reads the pipe (when the bridge gave one). The thread is started by the
 * first check of a call that has run for `readerAfterMs`: a check finds its call's id marked only from then on.
 */
export function watchCancels(fd: number = CANCEL_FD, readerAfterMs: number = CANCEL_READER_AFTER_MS): CancelFlags {
  const marks = new Int32Array(new SharedArrayBuffer(CANCEL_SLOTS * Int32Array.BYTES_PER_ELEMENT));
  let reading = false;
  const startReader = (): void => {
    reading = true;
    try {
      new Worker(READER_SOURCE, { eval: true, workerData: { fd, marks, slots: CANCEL_SLOTS, idBytes: ID_BYTES } }).unref();
    } catch {
      // No thread: cancellation still arrives as a message between the editor's awaits.
    }
  };
  return {
    cancelled: (id, since) => {
      if (!reading && performance.now() - since >= readerAfterMs) startReader();
      return Atomics.load(marks, id % CANCEL_SLOTS) === (id | 0);
    },
  };
}

/** The reader thread: bytes from the pipe, ids out of them, a mark per id. */
const READER_SOURCE = `
const { workerData } = require("node:worker_threads");
const { Socket } = require("node:net");
const { fd, marks, slots, idBytes } = workerData;
let rest = Buffer.alloc(0);
let pipe;
try {
  pipe = new Socket({ fd, readable: true, writable: false });
} catch {
  pipe = undefined; // no pipe: the bridge did not give one
}
pipe?.on("error", () => {});
pipe?.on("data", (chunk) => {
  const bytes = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
  let at = 0;
  for (; at + idBytes <= bytes.length; at += idBytes) {
    const id = bytes.readUInt32LE(at);
    Atomics.store(marks, id % slots, id | 0);
  }
  rest = bytes.subarray(at);
});
`;
