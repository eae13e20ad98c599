/*
 * Calls between bridges: a call for a document or an editor of another bridge is sent to that bridge by NATS
 * request-reply (`<cluster>.call.<bridge>`), which runs it as its own clients' calls are run: validated, through
 * the editor's mailbox (a lane of its own per calling client, so fairness holds across bridges), under the
 * caller's deadline. Cancelling crosses as a message (`<cluster>.cancel.<bridge>`). Messages too big for NATS
 * cross as references pulled in chunks (`Transfers`).
 */
import { createHash } from "node:crypto";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import { isClientIdLane } from "../actors/clients/names.js";
import type { Logger } from "../logger.js";
import type { CancelSignal } from "../actors/clients/requests.js";
import { isWireImage, WireImage } from "../methods/index.js";
import { BridgeError, toProtocolError } from "../protocol/index.js";
import type { EncodedImage, ProgressReporter } from "../hosts/host.js";
import type { ForwardedCall } from "../actors/editors/route.js";
import { isSealed, sealFrame, SealChecker, unsealUnchecked } from "./signing.js";
import type { TransferRef, Transfers } from "./transfers.js";
import { decodeFrame, encodeFrame } from "./wire.js";

/** Mailbox lanes of calls from other bridges start with this: `cluster:<bridge>:<their lane>`. */
export const CLUSTER_LANE_PREFIX = "cluster:";

/** How much longer than the call's own deadline a bridge waits for another bridge's answer before giving up on it. */
export const FORWARD_GRACE_MS = 2_000;
/** At most one log line per this long about calls refused for their signature, with how many: a flood writes a few lines. */
const REFUSED_LOG_INTERVAL_MS = 10_000;

/** `--cluster-secret` and `limits.clusterCallMaxAgeMs`: calls leave signed, and only signed ones are run. */
export interface CallSigning {
  readonly secret: string;
  readonly maxAgeMs: number;
}

/** A call as the bridge that runs it sees it. */
export interface IncomingCall extends ForwardedCall {
  /** The bridge it came from. */
  readonly from: string;
  /** Aborts when the caller cancels or the deadline passes. */
  readonly signal: AbortSignal;
  /** Sends progress back to the caller, when it asked for progress. */
  readonly progress?: ProgressReporter | undefined;
}

interface CallHeader {
  readonly t: "call";
  readonly id: number;
  readonly from: string;
  readonly method: string;
  readonly params: unknown;
  readonly editor?: string | undefined;
  readonly lane: string;
  readonly timeoutMs: number;
  /** Where the caller wants progress reports, when it does. */
  readonly progressTo?: string | undefined;
}

type ReplyHeader =
  | { readonly ok: true; readonly result?: unknown; readonly image?: Omit<EncodedImage, "bytes"> }
  | { readonly ok: false; readonly error: { code: string; message: string; details?: Record<string, unknown>; retryable?: boolean } };

type RefHeader = { readonly t: "ref"; readonly ref: TransferRef };

export class ClusterCalls {
  private next = 1;
  private readonly running = new Map<string, AbortController>();
  private readonly subs: Subscription[] = [];
  private readonly checker: SealChecker | undefined;
  /** Calls refused for their signature since the last log line about them, and when that was. */
  private refused = { count: 0, loggedAt: Number.NEGATIVE_INFINITY };

  constructor(
    private readonly nc: NatsConnection,
    private readonly cluster: string,
    private readonly bridge: string,
    private readonly transfers: Transfers,
    private readonly log: Logger,
    /** How often a caller checks that the bridge running its call is still there. */
    private readonly aliveEveryMs: number,
    /** A bridge turned out not to be there (NATS has no subscriber for it). */
    private readonly gone: (bridge: string) => void,
    /**
     * Whether `bridge` is still a member of the cluster (its entry in the members bucket has not expired). NATS
     * answers "no responders" for a dead bridge only when nobody else subscribes to its subjects: a monitor
     * subscribed to the cluster's whole subject tree, or a half-open connection, leaves the liveness request
     * unanswered instead, and the members' time to live is what ends the wait then.
     */
    private readonly present: (bridge: string) => boolean,
    private readonly signing?: CallSigning | undefined,
  ) {
    this.checker = signing === undefined ? undefined : new SealChecker(signing.secret, signing.maxAgeMs);
  }

  /** Runs the calls other bridges send here with `run`. */
  serve(run: (call: IncomingCall) => Promise<unknown>): void {
    this.subs.push(
      this.nc.subscribe(`${this.cluster}.call.${this.bridge}`, {
        callback: (_error, msg) => {
          void this.answer(msg.data, run).then(
            (reply) => msg.respond(reply),
            (error: unknown) => this.log.warn({ reason: String(error) }, "could not answer a call from another bridge"),
          );
        },
      }),
      this.nc.subscribe(`${this.cluster}.cancel.${this.bridge}`, {
        callback: (_error, msg) => void this.running.get(new TextDecoder().decode(msg.data))?.abort(),
      }),
      // Answered while this bridge is connected: a caller waiting on a long call checks it is still there.
      this.nc.subscribe(`${this.cluster}.alive.${this.bridge}`, { callback: (_error, msg) => void msg.respond() }),
    );
  }

  /**
   * Sends a call to `bridge` and resolves with its result (an image result as a `WireImage`), or rejects with its
   * error. @throws BridgeError `HOST_UNAVAILABLE` (retryable) when that bridge is not there or does not answer in time.
   */
  async forward(bridge: string, call: ForwardedCall, cancel?: CancelSignal, progress?: ProgressReporter): Promise<unknown> {
    const id = this.next++;
    // Progress reports come back on a subject of this call's own, while it runs.
    const progressTo = progress === undefined ? undefined : `${this.cluster}.progress.${this.bridge}.${id}`;
    const reports =
      progressTo === undefined
        ? undefined
        : this.nc.subscribe(progressTo, {
            callback: (_error, msg) => {
              try {
                const [value, total, message] = JSON.parse(new TextDecoder().decode(msg.data)) as [number, number | undefined, string | undefined];
                progress!(value, total ?? undefined, message ?? undefined);
              } catch {
                // Not a report: ignored.
              }
            },
          });
    const header: CallHeader = {
      t: "call",
      id,
      from: this.bridge,
      method: call.method,
      params: call.params,
      editor: call.editor,
      lane: crossingLane(call.lane),
      timeoutMs: call.timeoutMs,
      ...(progressTo !== undefined ? { progressTo } : {}),
    };
    const waitMs = call.timeoutMs + FORWARD_GRACE_MS;
    const onCancel = (): void => this.nc.publish(`${this.cluster}.cancel.${bridge}`, new TextEncoder().encode(`${this.bridge} ${id}`));
    cancel?.addEventListener("abort", onCancel, { once: true });
    const unavailable = (why: string): BridgeError =>
      new BridgeError("HOST_UNAVAILABLE", `Bridge "${bridge}" of this cluster ${why}`, { details: { bridge, method: call.method }, retryable: true });
    // A bridge that dies mid-call never answers: while waiting, check every `aliveEveryMs` that it is still there,
    // by asking it (NATS answers at once when nobody holds its subjects) and by the members bucket.
    let gone: (error: BridgeError) => void = () => {};
    const died = new Promise<never>((_, reject) => (gone = reject));
    died.catch(() => {}); // settled after the answer came: nobody waits for it any more
    const watch = setInterval(() => {
      if (!this.present(bridge)) {
        gone(unavailable("went away while running the call"));
        return;
      }
      this.nc.request(`${this.cluster}.alive.${bridge}`, undefined, { timeout: this.aliveEveryMs }).catch((error: unknown) => {
        if (!isNoResponders(error)) return;
        this.gone(bridge);
        gone(unavailable("went away while running the call"));
      });
    }, this.aliveEveryMs);
    try {
      const message = encodeFrame(header, call.parts);
      const sealed = this.signing === undefined ? message : sealFrame(this.signing.secret, message);
      const request = this.nc.request(`${this.cluster}.call.${bridge}`, this.fitted(sealed), { timeout: waitMs }).catch((error: unknown) => {
        if (!isNoResponders(error)) throw unavailable(`did not answer within ${waitMs} ms`);
        this.gone(bridge);
        throw unavailable("is not reachable");
      });
      const reply = await Promise.race([request, died]);
      const frame = await this.unfitted<ReplyHeader>(reply.data, waitMs);
      const answer = frame.header;
      if (!answer.ok) throw new BridgeError(answer.error.code, answer.error.message, { details: answer.error.details ?? {}, retryable: answer.error.retryable ?? false });
      if (answer.image !== undefined) return new WireImage({ ...answer.image, bytes: frame.parts[0] ?? new Uint8Array(0) } as EncodedImage);
      return answer.result;
    } finally {
      clearInterval(watch);
      reports?.unsubscribe();
      cancel?.removeEventListener("abort", onCancel);
    }
  }

  stop(): void {
    for (const sub of this.subs.splice(0)) sub.unsubscribe();
    for (const controller of this.running.values()) controller.abort();
  }

  private async answer(data: Uint8Array, run: (call: IncomingCall) => Promise<unknown>): Promise<Uint8Array> {
    let reply: Uint8Array;
    try {
      const { header, parts } = this.unsealed(await this.unfitted<object>(data, FORWARD_GRACE_MS * 5));
      const key = `${header.from} ${header.id}`;
      const controller = new AbortController();
      this.running.set(key, controller);
      // The caller's deadline travels with the call: past it, the call is cancelled here too.
      const timer = setTimeout(() => controller.abort(), header.timeoutMs);
      try {
        const progressTo = header.progressTo;
        const progress: ProgressReporter | undefined =
          typeof progressTo === "string" && progressTo.startsWith(`${this.cluster}.progress.`)
            ? (value, total, message) => this.nc.publish(progressTo, new TextEncoder().encode(JSON.stringify([value, total ?? null, message ?? null])))
            : undefined;
        const result = await run({ ...header, parts, signal: controller.signal, progress });
        if (isWireImage(result)) {
          const { bytes, ...image } = result.image;
          reply = encodeFrame({ ok: true, image }, [bytes]);
        } else {
          reply = encodeFrame({ ok: true, result: result === undefined ? null : result });
        }
      } finally {
        clearTimeout(timer);
        this.running.delete(key);
      }
    } catch (error) {
      const { code, message, details, retryable } = toProtocolError(error);
      reply = encodeFrame({ ok: false, error: { code, message, ...(details !== undefined ? { details } : {}), retryable } });
    }
    return this.fitted(reply);
  }

  /**
   * The call in a received message: with a secret, only once its seal holds (a refusal is counted and logged at
   * most once per interval); without one, as it came, unwrapped if another bridge sealed it.
   */
  private unsealed(frame: { header: object; parts: readonly Uint8Array[] }): { header: CallHeader; parts: readonly Uint8Array[] } {
    if (this.checker === undefined) return isSealed(frame) ? unsealUnchecked<CallHeader>(frame) : (frame as { header: CallHeader; parts: readonly Uint8Array[] });
    try {
      return this.checker.open<CallHeader>(frame);
    } catch (error) {
      this.refused.count++;
      const now = performance.now();
      if (now - this.refused.loggedAt >= REFUSED_LOG_INTERVAL_MS) {
        this.log.warn({ refused: this.refused.count, reason: (error as Error).message }, "calls from the cluster refused for their signature");
        this.refused = { count: 0, loggedAt: now };
      }
      throw error;
    }
  }

  /** The message as it can cross: itself, or a reference to it when it is over what one NATS message carries. */
  private fitted(bytes: Uint8Array): Uint8Array {
    if (bytes.byteLength <= this.transfers.messageBytes) return bytes;
    const ref: RefHeader = { t: "ref", ref: this.transfers.offer(bytes) };
    return encodeFrame(ref);
  }

  /** A message as received: pulled first when it is a reference. */
  private async unfitted<H extends object>(bytes: Uint8Array, timeoutMs: number): Promise<{ header: H; parts: readonly Uint8Array[] }> {
    const frame = decodeFrame<H | RefHeader>(bytes);
    const header = frame.header as Partial<RefHeader>;
    if (header.t !== "ref" || header.ref === undefined) return frame as { header: H; parts: readonly Uint8Array[] };
    return decodeFrame<H>(await this.transfers.fetch(header.ref, timeoutMs));
  }
}

/**
 * The caller's lane as it crosses: a logical client's id resumes that client, so it never enters NATS; a hash of
 * it still gives each client a lane of its own on the other bridge.
 */
export function crossingLane(lane: string): string {
  return isClientIdLane(lane) ? `client-${createHash("sha256").update(lane).digest("hex").slice(0, 24)}` : lane;
}

/** Whether a NATS request failed because nobody subscribes to its subject (the bridge it was for is gone). */
export function isNoResponders(error: unknown): boolean {
  return (error as { isNoResponders?: () => boolean }).isNoResponders?.() === true || /no responders/i.test(String(error));
}
