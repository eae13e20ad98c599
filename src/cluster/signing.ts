/*
 * Calls between bridges signed with a secret the cluster's bridges share (`--cluster-secret`): a bridge that has
 * one runs only calls sealed with it, recently, and once. Whoever can publish on the cluster's NATS but does not
 * hold the secret can then neither forge a call nor replay one it saw.
 *
 *   sealed = frame { t: "signed", at, nonce, sig } · the call's own frame
 *   sig    = HMAC-SHA256(secret, "<at> <nonce> " · the call's frame), hex
 */
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { BridgeError } from "../protocol/index.js";
import { decodeFrame, encodeFrame, type Frame } from "./wire.js";

/** The shortest secret accepted: shorter ones can be guessed by trying. */
export const MIN_CLUSTER_SECRET_LENGTH = 16;

interface SealHeader {
  readonly t: "signed";
  /** When it was sealed, epoch ms (the sender's clock). */
  readonly at: number;
  readonly nonce: string;
  readonly sig: string;
}

function signature(secret: string, at: number, nonce: string, frame: Uint8Array): Buffer {
  return createHmac("sha256", secret).update(`${at} ${nonce} `).update(frame).digest();
}

/** Wraps a call's frame with its signature. */
export function sealFrame(secret: string, frame: Uint8Array, now = Date.now()): Uint8Array {
  const nonce = randomUUID();
  const header: SealHeader = { t: "signed", at: now, nonce, sig: signature(secret, now, nonce, frame).toString("hex") };
  return encodeFrame(header, [frame]);
}

/** Whether a received frame is a sealed one (its call inside). */
export function isSealed(frame: Frame<object>): boolean {
  return (frame.header as { t?: unknown }).t === "signed" && frame.parts.length === 1;
}

/** The call inside a sealed frame, unchecked: for a bridge without a secret, which trusts its NATS account. */
export function unsealUnchecked<H extends object>(frame: Frame<object>): Frame<H> {
  return decodeFrame<H>(frame.parts[0]!);
}

/**
 * Checks sealed frames: the signature, the age (`maxAgeMs` either way of this bridge's clock) and that the nonce was
 * not seen in that time. Nonces are kept for `2 × maxAgeMs`, so their number is bounded by the calls received then.
 */
export class SealChecker {
  /** Nonces seen, in the order they came, with when each may be forgotten. */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly secret: string,
    private readonly maxAgeMs: number,
  ) {}

  /**
   * The call inside, once its seal holds.
   * @throws BridgeError `FORBIDDEN` for a call not sealed, sealed with another secret, too old, or seen before.
   */
  open<H extends object>(frame: Frame<object>, now = Date.now()): Frame<H> {
    if (!isSealed(frame)) throw refusal("it is not signed (this cluster's bridges sign their calls with --cluster-secret)");
    const { at, nonce, sig } = frame.header as Partial<SealHeader>;
    if (typeof at !== "number" || typeof nonce !== "string" || typeof sig !== "string") throw refusal("its signature is malformed");
    const inner = frame.parts[0]!;
    const expected = signature(this.secret, at, nonce, inner);
    const given = Buffer.from(sig, "hex");
    if (given.byteLength !== expected.byteLength || !timingSafeEqual(given, expected)) throw refusal("its signature does not match this cluster's secret");
    if (Math.abs(now - at) > this.maxAgeMs) throw refusal(`it was signed ${Math.round((now - at) / 1000)} s from now (limits.clusterCallMaxAgeMs: ${this.maxAgeMs} ms)`);
    this.forget(now);
    if (this.seen.has(nonce)) throw refusal("it was received before (a replay)");
    this.seen.set(nonce, now + 2 * this.maxAgeMs);
    return decodeFrame<H>(inner);
  }

  private forget(now: number): void {
    for (const [nonce, until] of this.seen) {
      if (until > now) return;
      this.seen.delete(nonce);
    }
  }
}

function refusal(why: string): BridgeError {
  return new BridgeError("FORBIDDEN", `A call from the cluster was refused: ${why}`);
}
