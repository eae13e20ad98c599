import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { BridgeError, isBridgeError, type ErrorCode } from "../../protocol/index.js";
import { LIBRARY_MARKER, LIBRARY_SOURCE, REPLY_MARK } from "./library.js";
import { lit, parseSexp, type Sexp } from "./scheme.js";
import { exchange, WireError, type Endpoint } from "./wire.js";

/** What the client needs from whoever owns the GIMP process. */
export interface ClientHooks {
  /** The endpoint to talk to; undefined while GIMP is not running. */
  endpoint(): Endpoint | undefined;
  /** A directory GIMP and the bridge share for replies and images. */
  workDir(): string;
  /**
   * A call ran past its deadline (GIMP is presumed stuck: nothing can cancel it) or GIMP stopped answering.
   * The owner restarts or gives up on GIMP; `restarted` tells the caller whether GIMP will come back fresh.
   */
  fault(reason: string, kind: "stuck" | "gone"): { restarted: boolean };
}

/** Options of one evaluation. */
export interface EvalOptions {
  /** Deadline in ms, counted from when the script is sent. */
  readonly timeoutMs: number;
  /** The caller gave up; before sending the call is dropped, after sending GIMP is presumed stuck. */
  readonly signal?: AbortSignal | undefined;
  /** Code of a Scheme error (err byte 1) that is not one of the library's `BR:` errors. @default "INTERNAL" */
  readonly errorCode?: ErrorCode | undefined;
}

/** A script's printed output and value (for `jsx:run`). */
export interface ScriptOutcome {
  readonly output: string;
  readonly value: Sexp;
}

interface Job {
  readonly form: string;
  readonly options: EvalOptions;
  readonly resolve: (value: ScriptOutcome) => void;
  readonly reject: (error: unknown) => void;
}

const BR_ERROR = /^BR:([A-Z_]+):(.*)$/s;

/**
 * Evaluates Scheme forms in GIMP one at a time (GIMP serializes everything anyway; an in-process FIFO keeps a
 * poll from queueing in the server behind a slow call). Each request is one top-level form
 * `(begin (set! *handlers* '()) …)`, so a stale `catch` handler of an earlier script cannot swallow errors, and
 * it never ends in whitespace (which would append `#<EOF>`).
 */
export class GimpClient {
  private readonly queue: Job[] = [];
  private active = false;
  private libraryLoaded = false;
  private sequence = 0;

  constructor(private readonly hooks: ClientHooks) {}

  /** Calls waiting or running; the poller stays out of the way while this is not 0. */
  get pending(): number {
    return this.queue.length + (this.active ? 1 : 0);
  }

  /** Forget that the library is loaded (a new GIMP process). */
  reset(): void {
    this.libraryLoaded = false;
  }

  /** Fails every waiting call (GIMP went away). */
  failQueued(error: BridgeError): void {
    for (const job of this.queue.splice(0)) job.reject(error);
  }

  /** Evaluates a form and returns its value. */
  async call(form: string, options: EvalOptions): Promise<Sexp> {
    return (await this.run(form, options)).value;
  }

  /** Evaluates a form and returns its value and anything it printed. */
  run(form: string, options: EvalOptions): Promise<ScriptOutcome> {
    return new Promise<ScriptOutcome>((resolve, reject) => {
      if (options.signal?.aborted) return reject(notStarted());
      const onAbort = (): void => {
        const at = this.queue.indexOf(job);
        if (at >= 0) {
          this.queue.splice(at, 1);
          reject(notStarted());
        }
      };
      const settle = <T>(fn: (value: T) => void) => (value: T): void => {
        options.signal?.removeEventListener("abort", onAbort);
        fn(value);
      };
      const job: Job = { form, options, resolve: settle(resolve), reject: settle(reject) };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(job);
      this.pump();
    });
  }

  private pump(): void {
    if (this.active) return;
    const job = this.queue.shift();
    if (!job) return;
    this.active = true;
    this.execute(job)
      .then(job.resolve, job.reject)
      .finally(() => {
        this.active = false;
        this.pump();
      });
  }

  private async execute(job: Job): Promise<ScriptOutcome> {
    if (!this.libraryLoaded) await this.loadLibrary(job.options);
    try {
      return await this.evaluate(job);
    } catch (error) {
      // A GIMP restarted behind our back (attach mode) lost the library: load it again once.
      if (error instanceof BridgeError && /unbound variable: br-/.test(error.message)) {
        await this.loadLibrary(job.options);
        return this.evaluate(job);
      }
      throw error;
    }
  }

  private async loadLibrary(options: EvalOptions): Promise<void> {
    await this.send(`(begin (set! *handlers* '()) (if (not (defined? '${LIBRARY_MARKER})) (begin ${LIBRARY_SOURCE} (define ${LIBRARY_MARKER} #t))))`, options);
    this.libraryLoaded = true;
  }

  private async evaluate(job: Job): Promise<ScriptOutcome> {
    const file = join(this.hooks.workDir(), `reply-${process.pid}-${++this.sequence}.txt`);
    const script = `(begin (set! *handlers* '()) (br-reply (lambda () ${job.form}) ${lit(file)}))`;
    const body = await this.send(script, job.options);
    const split = splitReply(body);
    if (!split) throw new BridgeError("INTERNAL", "GIMP answered without the bridge's reply mark", { details: { reply: body.slice(0, 200) } });
    let text = split.payload;
    if (split.kind === "F") {
      try {
        text = await readFile(file, "utf8");
      } finally {
        await rm(file, { force: true });
      }
    }
    try {
      return { output: split.output, value: parseSexp(text) };
    } catch (error) {
      throw new BridgeError("INTERNAL", "GIMP's reply could not be parsed", { details: { reply: text.slice(0, 200), reason: String(error) }, cause: error });
    }
  }

  /** One exchange with deadline and fault handling; resolves with the body of a successful reply. */
  private async send(script: string, options: EvalOptions): Promise<string> {
    const endpoint = this.hooks.endpoint();
    if (!endpoint) throw new BridgeError("HOST_UNAVAILABLE", "GIMP is not running");
    const controller = new AbortController();
    let why: "deadline" | "aborted" | undefined;
    const timer = setTimeout(() => {
      why = "deadline";
      controller.abort();
    }, options.timeoutMs);
    const onAbort = (): void => {
      // GIMP cannot stop a script it is running, and dropping the exchange would mean restarting GIMP (every open
      // image lost): a cancelled call is left to finish, its answer unread; its own deadline still applies.
      if (isBridgeError(options.signal?.reason) && options.signal.reason.code === "CANCELLED") return;
      why ??= "aborted";
      controller.abort();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const reply = await exchange(endpoint, script, controller.signal);
      if (reply.body === "#<EOF>" || reply.body.endsWith("#<EOF>")) {
        // An incomplete script evaluates to #<EOF> with err = 0.
        throw new BridgeError(options.errorCode ?? "INTERNAL", "GIMP could not read the script: it is incomplete (unbalanced parentheses or quotes)", {
          details: { gimpError: "#<EOF>" },
        });
      }
      if (reply.error) throw schemeError(reply.body, options.errorCode ?? "INTERNAL");
      return reply.body;
    } catch (error) {
      if (!(error instanceof WireError)) throw error;
      if (error.failure === "aborted") {
        const { restarted } = this.hooks.fault(why === "deadline" ? `a call ran past its ${options.timeoutMs} ms deadline` : "a running call was abandoned", "stuck");
        throw new BridgeError("TIMEOUT", `GIMP did not answer within the deadline${restarted ? "; GIMP is being restarted: images with a recovery copy come back under their ids, the others are lost" : ""}`, {
          details: { outcome: "unknown", restarted, timeoutMs: options.timeoutMs },
        });
      }
      if (error.failure === "refused" || error.failure === "closed") this.hooks.fault(error.message, "gone");
      throw new BridgeError("HOST_UNAVAILABLE", `GIMP went away during the call: ${error.message}`, {
        details: { reason: error.failure },
        cause: error,
      });
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    }
  }
}

function notStarted(): BridgeError {
  return new BridgeError("TIMEOUT", "The call was abandoned before GIMP started it", { details: { outcome: "not-started" } });
}

/** Finds the reply mark: `<printed output> \x01BR <V|F> <length> : <payload>`. */
export function splitReply(body: string): { output: string; kind: "V" | "F"; payload: string } | undefined {
  let at = body.lastIndexOf(REPLY_MARK);
  while (at >= 0) {
    const match = /^([VF])(\d+):/.exec(body.slice(at + REPLY_MARK.length));
    if (match) {
      const payload = body.slice(at + REPLY_MARK.length + match[0].length);
      // The length is in characters (code points), as TinyScheme counts them.
      if (match[1] === "F" || Array.from(payload).length === Number(match[2])) {
        return { output: body.slice(0, at), kind: match[1] as "V" | "F", payload };
      }
    }
    at = at === 0 ? -1 : body.lastIndexOf(REPLY_MARK, at - 1);
  }
  return undefined;
}

/** Maps an error reply (`Error: <text> \n`) to a BridgeError. */
export function schemeError(body: string, fallback: ErrorCode): BridgeError {
  const start = body.indexOf("Error: ");
  const text = (start >= 0 ? body.slice(start + 7) : body).trim();
  const ours = BR_ERROR.exec(text);
  if (ours) {
    const [, code, detail] = ours as unknown as [string, string, string];
    if (code === "DOCUMENT_NOT_FOUND") return new BridgeError(code, `No open GIMP image with id ${detail}`, { details: { documentId: Number(detail) } });
    if (code === "LAYER_NOT_FOUND") return new BridgeError(code, `No layer with id ${detail} in this image`, { details: { layerId: Number(detail) } });
    if (code === "LOCKED") {
      return new BridgeError("BAD_REQUEST", `Layer ${detail} is locked: unlock it (layer:update locked: false) first`, {
        details: { layerId: Number(detail), locked: true },
      });
    }
    if (code === "TEXT_BOX") {
      // The detail is GIMP's layer id, which need not be the bridge's: the caller knows the layer it named.
      return new BridgeError("NOT_SUPPORTED", "This text layer is a box: GIMP 2.10 cannot turn it back into point text; pass a box", {
        details: { editor: "gimp", capability: "layer:updateText", field: "position" },
      });
    }
    if (code === "PAYLOAD_TOO_LARGE") {
      // `br-fits`: "<width> <height> <max>".
      const [width, height, maxPixels] = detail.split(" ").map(Number) as [number, number, number];
      return new BridgeError(code, `A result of ${width}×${height} exceeds ${maxPixels} pixels`, {
        details: { width, height, maxPixels, limit: "maxDocumentPixels" },
      });
    }
    return new BridgeError(code, detail);
  }
  return new BridgeError(fallback, `GIMP: ${text}`, { details: { gimpError: text.slice(0, 1_000) } });
}
