import { Worker } from "node:worker_threads";
import { BridgeError } from "../protocol/index.js";

/*
 * JSON parsed on a worker thread, for the large frames and bodies a client may send: parsing holds a thread for as
 * long as the text is long or deep (a 2 MB array nested 1,000,000 deep takes two seconds), and on the bridge's own
 * thread that is every client's wait. The worker first measures the nesting (a linear scan), refuses what is
 * deeper than the limit (it could not be handed back either: cloning recurses), then parses; the value comes back
 * by structured clone. One worker, one text at a time, in the order asked; it is started on first use and does
 * not hold the process open.
 */

/** The worker's code: depth scan, then parse. Inline, so it runs the same from sources and from dist/. */
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
function depthOf(text, max) {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 91 || c === 123) { if (++depth > max) return depth; }
    else if (c === 93 || c === 125) depth--;
  }
  return 0;
}
// The value of a top-level "id" key (a string or a number), found without parsing: a refused request is answered on it.
function topLevelId(text) {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      let end = i + 1;
      while (end < text.length && text.charCodeAt(end) !== 34) end += text.charCodeAt(end) === 92 ? 2 : 1;
      if (depth === 1 && text.slice(i, end + 1) === '"id"') {
        const rest = /^\\s*:\\s*("(?:[^"\\\\]|\\\\.)*"|-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?)/.exec(text.slice(end + 1, end + 1 + 400));
        if (rest !== null) { try { return JSON.parse(rest[1]); } catch { return undefined; } }
      }
      i = end;
    } else if (c === 91 || c === 123) depth++;
    else if (c === 93 || c === 125) depth--;
  }
  return undefined;
}
parentPort.on("message", ({ id, text, maxDepth }) => {
  if (depthOf(text, maxDepth) > maxDepth) return parentPort.postMessage({ id, error: "deep", requestId: topLevelId(text) });
  let value;
  try { value = JSON.parse(text); } catch { return parentPort.postMessage({ id, error: "json" }); }
  try { parentPort.postMessage({ id, value }); } catch { parentPort.postMessage({ id, error: "clone" }); }
});
`;

interface Job {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly maxDepth: number;
}

type Answer = { id: number; value: unknown; error?: undefined } | { id: number; error: "deep" | "json" | "clone"; requestId?: unknown };

/** JSON nested past the limit; `requestId` is its top-level `id`, when it has a valid one to be answered on. */
export class TooDeep extends BridgeError {
  constructor(
    maxDepth: number,
    readonly requestId: string | number | undefined,
  ) {
    super("BAD_REQUEST", `JSON nested deeper than ${maxDepth} levels is refused (maxJsonDepth)`, { details: { limit: "maxJsonDepth", maxDepth } });
  }
}

/** A request id as the protocol takes it: 1–256 characters, or a safe integer. */
const validId = (id: unknown): string | number | undefined =>
  (typeof id === "string" && id.length >= 1 && id.length <= 256) || (typeof id === "number" && Number.isSafeInteger(id)) ? (id as string | number) : undefined;

/** A thrown value that says the text is not JSON (the caller words its own refusal). */
export class NotJson extends Error {}

class OffThreadParser {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly jobs = new Map<number, Job>();

  parse(text: string, maxDepth: number): Promise<unknown> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.jobs.set(id, { resolve, reject, maxDepth });
      if (this.jobs.size === 1) worker.ref();
      worker.postMessage({ id, text, maxDepth });
    });
  }

  private start(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true, name: "json-parse" });
    worker.unref();
    worker.on("message", (answer: Answer) => {
      const job = this.jobs.get(answer.id);
      if (job === undefined) return;
      this.jobs.delete(answer.id);
      // Held open only while a text is being parsed.
      if (this.jobs.size === 0) worker.unref();
      if (answer.error === undefined) job.resolve(answer.value);
      else if (answer.error === "deep") job.reject(new TooDeep(job.maxDepth, validId(answer.requestId)));
      else job.reject(new NotJson(answer.error));
    });
    const fail = (error: Error): void => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      // The next text starts a new worker; the ones in flight fail (the caller answers INTERNAL).
      for (const job of this.jobs.values()) job.reject(error);
      this.jobs.clear();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`the JSON worker exited with ${code}`)));
    this.worker = worker;
    return worker;
  }
}

const parser = new OffThreadParser();

/**
 * Parses `text` on the worker thread. Rejects with {@link NotJson} for text that is not JSON and with a
 * `BAD_REQUEST` {@link TooDeep} for nesting deeper than `maxDepth`.
 */
export function parseJsonOffThread(text: string, maxDepth: number): Promise<unknown> {
  return parser.parse(text, maxDepth);
}
