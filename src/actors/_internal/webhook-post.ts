import { createHmac } from "node:crypto";
import { request as httpRequest, type ClientRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { guardedLookup } from "../../imports/index.js";
import { BridgeError, type WebhookDelivery as DeliveryRecord } from "../../protocol/index.js";

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

/** The refusal of a non-public target, at the URL check and after each DNS lookup. */
export function privateTarget(host: string, address: string): BridgeError {
  return new BridgeError("FORBIDDEN", `Refusing webhook target ${host}: it is a non-public address (${address}); start the bridge with --allow-private-webhooks to allow it`, {
    details: { capability: "webhook:private-url", host, address },
  });
}

/** The signature a receiver recomputes: `sha256=` and the hex HMAC-SHA256 of `<timestamp>.<body>`. */
export function signDelivery(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** Where one webhook's deliveries go, and how long an attempt may take. */
export interface PostTarget {
  readonly url: URL;
  readonly secret: string;
  readonly allowPrivate: boolean;
  readonly timeoutMs: number;
}

/**
 * POSTs one attempt of a delivery, signed; resolves with its record, never rejects. A non-2xx answer, a redirect
 * (never followed), no answer within `timeoutMs`, or a connection error is a failed attempt. The request sits in
 * `inFlight` while it runs, so closing the bridge can end it; `closed` says whether that is why it ended.
 */
export function postDelivery(target: PostTarget, pending: Pending, inFlight: Set<ClientRequest>, closed: () => boolean): Promise<DeliveryRecord> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const body = `{"id":${JSON.stringify(pending.deliveryId)},"type":${JSON.stringify(pending.type)},"timestamp":${timestamp},"data":${pending.json}}`;
  const started = performance.now();
  const record = (status: number | null, error?: string): DeliveryRecord => ({
    deliveryId: pending.deliveryId,
    type: pending.type,
    attempt: pending.attempt,
    status,
    ok: error === undefined && status !== null && status >= 200 && status < 300,
    durationMs: Math.round(performance.now() - started),
    ...(error !== undefined ? { error } : status !== null && (status < 200 || status >= 300) ? { error: `HTTP ${status}` } : {}),
    at: new Date().toISOString(),
  });
  const request = target.url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(target.url, {
      method: "POST",
      lookup: guardedLookup(target.allowPrivate, privateTarget),
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
    // One timer per attempt, not an AbortSignal pair: cheaper at thousands of deliveries a second.
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      req.destroy();
    }, target.timeoutMs);
    inFlight.add(req);
    req.once("close", () => {
      clearTimeout(deadline);
      inFlight.delete(req);
    });
    req.once("response", (response) => {
      const status = response.statusCode ?? 0;
      // The body is not read for anything: drain it, bounded by the deadline above (which may cut it: ignored).
      response.on("error", () => {});
      response.resume();
      // Redirects are not followed: a receiver moves by being added again.
      resolve(status >= 300 && status < 400 ? record(status, `redirect (HTTP ${status}) not followed`) : record(status));
    });
    req.on("error", (error: Error) => {
      const message = closed() ? "the bridge closed" : timedOut ? `no answer within ${target.timeoutMs} ms` : error.message;
      resolve(record(null, message));
    });
    req.end(body);
  });
}

