import { createHmac } from "node:crypto";
import { request as httpRequest, type ClientRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { guardedLookup } from "../imports/address.js";
import type { WebhookDelivery as DeliveryRecord } from "../protocol/index.js";

/* One webhook delivery on the wire: its headers, its signature, and the HTTP request that carries it. */

/** Header carrying `sha256=<hex>`: HMAC-SHA256 with the webhook's secret over `<timestamp>.<body>`. */
export const SIGNATURE_HEADER = "x-bridge-signature";
/** Header carrying the delivery's timestamp (Unix seconds), the one the signature covers. */
export const TIMESTAMP_HEADER = "x-bridge-timestamp";
/** Header carrying the delivery id: the same on every attempt of one delivery, so a receiver can drop repeats. */
export const DELIVERY_HEADER = "x-bridge-delivery";
/** Header naming the event type. */
export const EVENT_HEADER = "x-bridge-event";

/** One delivery waiting in a webhook's queue, with the attempts made so far. */
export interface Pending {
  readonly deliveryId: string;
  readonly type: string;
  readonly json: string;
  attempt: number;
}

/** What refusing a non-public target says, at the URL check (a `FORBIDDEN` answer) and after each DNS lookup (the attempt's error). */
export function privateTargetMessage(host: string, address: string): string {
  return `Refusing webhook target ${host}: it is a non-public address (${address}); start the bridge with --allow-private-webhooks to allow it`;
}

/** The signature a receiver recomputes: `sha256=` and the hex HMAC-SHA256 of `<timestamp>.<body>`. */
export function signDelivery(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** Where one webhook's deliveries go, how long an attempt may take, and how much of an answer's body is kept. */
export interface PostTarget {
  readonly url: URL;
  readonly secret: string;
  readonly allowPrivate: boolean;
  readonly timeoutMs: number;
  /** Bytes of the answer body kept for the delivery log; past them the connection is closed unread. */
  readonly maxBodyBytes: number;
}

/** What an attempt ended with: its record, and whether the answer body was cut short. */
export interface PostOutcome {
  readonly record: DeliveryRecord;
  readonly bodyCut: boolean;
}

/**
 * The delivery log's record of one attempt that began at `started` (`performance.now()`): ok for a 2xx status and
 * no error; a status outside 2xx is its own error.
 */
export function attemptRecord(pending: Pending, started: number, status: number | null, error?: string, answer?: { text: string; cut: boolean }): DeliveryRecord {
  return {
    deliveryId: pending.deliveryId,
    type: pending.type,
    attempt: pending.attempt,
    status,
    ok: error === undefined && status !== null && status >= 200 && status < 300,
    durationMs: Math.round(performance.now() - started),
    ...(error !== undefined ? { error } : status !== null && (status < 200 || status >= 300) ? { error: `HTTP ${status}` } : {}),
    ...(answer !== undefined && answer.text !== "" ? { responseBody: answer.text } : {}),
    ...(answer?.cut === true ? { responseBodyCut: true } : {}),
    at: new Date().toISOString(),
  };
}

/**
 * POSTs one attempt of a delivery, signed; resolves with its record, never rejects. A non-2xx answer, a redirect
 * (never followed), no answer within `timeoutMs`, or a connection error is a failed attempt. Of the answer, the
 * status and at most `maxBodyBytes` of the body are kept; a body that goes on past them is cut and its connection
 * destroyed, never drained: reading a receiver's endless body would cost the bridge's thread until the deadline.
 * The request sits in `inFlight` while it runs, so closing the bridge can end it; `closed` says whether that is why
 * it ended.
 */
export function postDelivery(target: PostTarget, pending: Pending, inFlight: Set<ClientRequest>, closed: () => boolean): Promise<PostOutcome> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const body = `{"id":${JSON.stringify(pending.deliveryId)},"type":${JSON.stringify(pending.type)},"timestamp":${timestamp},"data":${pending.json}}`;
  const started = performance.now();
  const record = (status: number | null, error?: string, answer?: { text: string; cut: boolean }): DeliveryRecord => attemptRecord(pending, started, status, error, answer);
  const request = target.url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: PostOutcome): void => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    const req = request(target.url, {
      method: "POST",
      lookup: guardedLookup(target.allowPrivate, (host, address) => new Error(privateTargetMessage(host, address))),
      headers: {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        "user-agent": "image-editor-bridge-webhooks",
        [EVENT_HEADER]: pending.type,
        [DELIVERY_HEADER]: pending.deliveryId,
        [TIMESTAMP_HEADER]: timestamp,
        [SIGNATURE_HEADER]: signDelivery(target.secret, timestamp, body),
      },
    });
    // The answer's status once it came, and the start of its body: what the record says if the deadline cuts it.
    let status: number | undefined;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    const answered = (cut: boolean): void => {
      const answer = { text: Buffer.concat(kept).toString("utf8"), cut };
      // Redirects are not followed: a receiver moves by being added again.
      const s = status ?? 0;
      settle({ record: s >= 300 && s < 400 ? record(s, `redirect (HTTP ${s}) not followed`, answer) : record(s, undefined, answer), bodyCut: cut });
    };
    // One timer per attempt, not an AbortSignal pair: cheaper at thousands of deliveries a second.
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      // A receiver that answered its status but is still sending its body: the status stands, the body is cut.
      if (status !== undefined) answered(true);
      req.destroy();
    }, target.timeoutMs);
    inFlight.add(req);
    req.once("close", () => {
      clearTimeout(deadline);
      inFlight.delete(req);
    });
    req.once("response", (response) => {
      status = response.statusCode ?? 0;
      response.on("error", () => {});
      response.on("data", (chunk: Buffer) => {
        if (settled) return;
        const room = target.maxBodyBytes - keptBytes;
        if (chunk.length <= room) {
          kept.push(chunk);
          keptBytes += chunk.length;
          return;
        }
        if (room > 0) kept.push(chunk.subarray(0, room));
        keptBytes += room;
        // Past the cap: whatever follows is not read. Destroying the socket, not pausing it, so a keep-alive agent
        // never hands it to the next delivery with the rest of this body still coming.
        answered(true);
        req.destroy();
      });
      response.once("end", () => answered(false));
      // Closed before its end (the receiver hung up mid-body): what came is what there is.
      response.once("close", () => answered(!response.complete));
    });
    req.on("error", (error: Error) => {
      const message = closed() ? "the bridge closed" : timedOut ? `no answer within ${target.timeoutMs} ms` : error.message;
      if (status !== undefined) answered(true);
      else settle({ record: record(null, message), bodyCut: false });
    });
    req.end(body);
  });
}
