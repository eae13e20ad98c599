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
 * are held) and leaves in one write with the lines logged meanwhile. pino's own destination (sonic-boom,
 * asynchronous) hands every line to the thread pool on its own when no write is under way, and each hand-over wakes a
 * pool thread: a thousand clients connecting in a burst cost a thousand of them for their "connected" lines, about
 * a tenth of the bridge's work per connection. Writing stays asynchronous, so a slow reader of the log never blocks
 * the event loop. Lines still held when the process exits (`process.exit`, a fatal error) are written synchronously
 * from the `exit` event, after what sonic-boom still holds; only a process killed outright (SIGKILL) loses the
 * lines of its last `flushMs`.
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
    this.dest = pino.destination({ dest: fd, sync: false });
    if (atExit.size === 0) process.on("exit", flushAllAtExit);
    atExit.add(new WeakRef(this));
  }

  write(line: string): void {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= LOG_FLUSH_CHARS || this.flushMs <= 0) this.drain();
    else if (this.timer === undefined) this.timer = setTimeout(this.drain, this.flushMs).unref();
  }

  /** Hands the held lines to sonic-boom, which writes them, or queues them behind the write under way. */
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

  /** At exit: what sonic-boom holds, then the held lines, both synchronously (the event loop has stopped). */
  readonly flushSync = (): void => {
    clearTimeout(this.timer);
    this.timer = undefined;
    const rest = Buffer.from(this.lines.join(""));
    this.lines = [];
    this.chars = 0;
    try {
      this.dest.flushSync();
    } catch {
      // not open yet, or closed: the held lines still go out below
    }
    for (let written = 0, tries = 0; written < rest.length && tries < 100; tries++) {
      try {
        written += writeSync(this.fd, rest, written);
      } catch {
        // EAGAIN on a full non-blocking pipe: try again (bounded, the process is ending)
      }
    }
  };
}
