import { NOT_AT_HAND } from "../host.js";
import type { HostOp } from "./protocol.js";

/**
 * Reads answered from the bridge's side of the hop. The embedded editor's state changes only through the calls the
 * bridge sends it (no user works in a headless editor), so the last answer to a small read stays true until a call
 * that may change something is sent: then every cached answer is dropped, before that call leaves and again when it
 * ends. Cached answers are deeply frozen and shared: a caller that tried to modify one would throw, not corrupt it.
 *
 * Only small answers are kept (documents, trees, selections); pixels are never cached.
 */
export const CACHED_READS: ReadonlySet<HostOp> = new Set<HostOp>(["getDocument", "getDocumentTree", "listDocuments", "getSelection"]);

/** Operations that read without changing anything, so they leave the cache as it is. */
const PURE_READS: ReadonlySet<HostOp> = new Set<HostOp>([...CACHED_READS, "getSelectionOutline", "exportDocumentImage", "exportLayerImage", "saveLosses", "layerComps"]);

/** A read's key: most reads name no document (the active one), and their key is the operation alone. */
function keyOf(op: HostOp, args: readonly unknown[]): string {
  return args.length === 0 || (args.length === 1 && args[0] === undefined) ? op : `${op}:${JSON.stringify(args)}`;
}

export class ReadCache {
  private readonly answers = new Map<string, unknown>();
  /** Bumped by every change: an answer that left before a change began is not stored after it. */
  private generation = 0;

  /** Runs `op` through the cache: a cached read answers at once, a change drops every cached answer. */
  async run(op: HostOp, args: readonly unknown[], send: () => Promise<unknown>): Promise<unknown> {
    if (!PURE_READS.has(op)) {
      this.clear();
      try {
        return await send();
      } finally {
        this.clear();
      }
    }
    if (!CACHED_READS.has(op)) return send();
    const key = keyOf(op, args);
    if (this.answers.has(key)) return this.answers.get(key);
    const generation = this.generation;
    const answer = deepFreeze(await send());
    if (generation === this.generation) this.answers.set(key, answer);
    return answer;
  }

  /** The answer held for a read, without sending anything; `NOT_AT_HAND` when there is none. */
  peek(op: HostOp, args: readonly unknown[]): unknown {
    if (!CACHED_READS.has(op)) return NOT_AT_HAND;
    const key = keyOf(op, args);
    return this.answers.has(key) ? this.answers.get(key) : NOT_AT_HAND;
  }

  /** Forgets every answer (a change, or the editor was lost). */
  clear(): void {
    this.generation++;
    this.answers.clear();
  }
}

function deepFreeze<T>(value: T): T {
  // Typed arrays cannot be frozen; none are cached today, and one would simply stay writable.
  if (value === null || typeof value !== "object" || Object.isFrozen(value) || ArrayBuffer.isView(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}
