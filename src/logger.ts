import { writeSync } from "node:fs";
import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger };

/** Options for the structured logger; pretty output only on an interactive terminal. */
export interface LoggerOptions {
  /** @default "info" */
  level?: string;
  /** How long a line may wait to be written with the lines after it (0: each line at once). @default LOG_FLUSH_MS */
  flushMs?: number;
  /** @default process.stdout.isTTY */
  pretty?: boolean;
}

/** Creates the bridge's structured logger (pino). Children carry the actor id, e.g. `{ actor: "client:…" }`. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? "info";
  const pretty = options.pretty ?? process.stdout.isTTY === true;
  if (!pretty) return pino({ level, base: { name: "image-editor-bridge" } }, new BatchedDestination(1, options.flushMs));
  return pino({
    level,
    base: undefined,
    transport: { target: "pino-pretty", options: { colorize: true, ignore: "pid,hostname", translateTime: "HH:MM:ss" } },
  });
}

/** A logger that drops everything; the default for bridges created in tests. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}

/** Destinations to flush when the process exits; weak, so a logger dropped in a long-lived process is collected. */
const atExit = new Set<WeakRef<BatchedDestination>>();

function flushAllAtExit(): void {
  for (const ref of atExit) ref.deref()?.flushSync();
}

/** How long a log line may wait to be written with the lines that follow it (`createLogger`'s `flushMs`). */
export const LOG_FLUSH_MS = 20;
/** Held lines past this many characters are written at once, without waiting for `LOG_FLUSH_MS`. */
export const LOG_FLUSH_CHARS = 16 * 1024;

/**
 * A log destination that writes its lines in batches: a line waits at most `flushMs` (or until `LOG_FLUSH_CHARS`
 * are held) and leaves in one write with the lines logged meanwhile. pino's own asynchronous destination hands every
 * line to libuv's thread pool on its own when no write is under way, and each hand-over wakes a pool thread: a
 * thousand clients connecting in a burst cost a thousand of them for their "connected" lines, about a tenth of the
 * bridge's work per connection. A batch is written synchronously on the main thread (one `write` per batch, as Node
 * writes `process.stdout` to a pipe on Linux): an asynchronous write still in the pool when the process exits lands
 * after the lines written at exit, so the log would come out of order. Lines still held when the process exits
 * (`process.exit`, a fatal error) are written from the `exit` event; only a process killed outright (SIGKILL) loses
 * the lines of its last `flushMs`.
 */
export class BatchedDestination implements DestinationStream {
  private lines: string[] = [];
  private chars = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly dest: ReturnType<typeof pino.destination>;

  constructor(
    readonly fd: number,
    private readonly flushMs = LOG_FLUSH_MS,
  ) {
    this.dest = pino.destination({ dest: fd, sync: true });
    if (atExit.size === 0) process.on("exit", flushAllAtExit);
    atExit.add(new WeakRef(this));
  }

  write(line: string): void {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= LOG_FLUSH_CHARS || this.flushMs <= 0) this.drain();
    else if (this.timer === undefined) this.timer = setTimeout(this.drain, this.flushMs).unref();
  }

  /** Writes the held lines in one synchronous write (sonic-boom retries a full non-blocking pipe). */
  private readonly drain = (): void => {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.lines.length === 0) return;
    const chunk = this.lines.length === 1 ? this.lines[0]! : this.lines.join("");
    this.lines = [];
    this.chars = 0;
    this.dest.write(chunk);
  };

  /** `logger.flush(cb)`: the held lines are handed over, then sonic-boom's flush. */
  flush(cb?: (error?: Error) => void): void {
    this.drain();
    this.dest.flush(cb);
  }

  /** At exit: the held lines, written synchronously (the event loop has stopped; nothing else is in flight). */
  readonly flushSync = (): void => {
    clearTimeout(this.timer);
    this.timer = undefined;
    const rest = Buffer.from(this.lines.join(""));
    this.lines = [];
    this.chars = 0;
    for (let written = 0, tries = 0; written < rest.length && tries < 100; tries++) {
      try {
        written += writeSync(this.fd, rest, written);
      } catch {
        // EAGAIN on a full non-blocking pipe: try again (bounded, the process is ending)
      }
    }
  };
}
