/*
 * Messages between the bridge and a plugin's worker or process cross in batches. Each `postMessage` (or IPC send)
 * has a fixed cost on both sides: a serialisation pass, a wake-up of the other thread, a callback there. Under load
 * many calls arrive in one turn of the event loop (several WebSocket frames read at once), so everything posted in
 * that turn leaves together at its end (`setImmediate`): one crossing for the lot, in the order posted.
 */

/** What crosses: one message, or (more than one posted in a turn) an array of them in order. */
export type Crossing<T> = T | T[];

/** The messages of a crossing, in order. */
export function messagesOf<T>(crossing: Crossing<T>): T[] {
  return Array.isArray(crossing) ? crossing : [crossing];
}

/** Sends a crossing; throws when a value cannot be cloned. */
export type Send<T> = (crossing: Crossing<T>, transfer: ArrayBuffer[]) => void;

/**
 * Collects what is posted in one turn and sends it at the turn's end. When the batch cannot be sent (a value
 * structured clone refuses), each message is sent alone so only the bad one fails, through `refused`.
 */
export class Outbox<T> {
  private queue: T[] = [];
  private transfer: ArrayBuffer[] = [];
  private scheduled = false;
  private closed = false;

  constructor(
    private readonly send: Send<T>,
    private readonly refused: (message: T, error: unknown) => void,
  ) {}

  post(message: T, transfer?: readonly ArrayBuffer[]): void {
    if (this.closed) return;
    this.queue.push(message);
    if (transfer !== undefined) this.transfer.push(...transfer);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Sends what is queued now. */
  flush(): void {
    this.scheduled = false;
    const queue = this.queue;
    const transfer = this.transfer;
    if (queue.length === 0 || this.closed) return;
    this.queue = [];
    this.transfer = [];
    try {
      this.send(queue.length === 1 ? queue[0]! : queue, transfer);
      return;
    } catch (error) {
      if (queue.length === 1) {
        this.refused(queue[0]!, error);
        return;
      }
    }
    // One value spoiled the batch: alone, each of the others still goes (a transfer list goes with the first
    // message that names it, so a buffer is never listed twice).
    for (const message of queue) {
      try {
        this.send(message, transfer.filter((buffer) => carries(message, buffer)));
      } catch (error) {
        this.refused(message, error);
      }
    }
  }

  /** Drops what is queued and everything posted from now on (the other side is gone). */
  close(): void {
    this.closed = true;
    this.queue = [];
    this.transfer = [];
  }
}

/** Whether `buffer` is somewhere in `message` (a route answer's body sits three levels down). */
function carries(message: unknown, buffer: ArrayBuffer, depth = 0): boolean {
  if (message === buffer) return true;
  if (depth > 3 || typeof message !== "object" || message === null) return false;
  return Object.values(message).some((value) => carries(value, buffer, depth + 1));
}
