import { z } from "zod";
import { BridgeError, ProtocolErrorSchema } from "./errors.js";

/** Longest request id accepted; ids are echoed back, so they are bounded. */
export const MAX_REQUEST_ID_LENGTH = 256;
/** Longest method name accepted. */
export const MAX_METHOD_NAME_LENGTH = 256;

/**
 * A request id: a string of 1–{@link MAX_REQUEST_ID_LENGTH} characters, or a safe integer (the JSON-RPC habit).
 * It is echoed back exactly as sent: a number stays a number. Fractions and integers past 2^53 are refused,
 * since they would not survive the round trip through JSON unchanged.
 */
export const RequestIdSchema = z.union([z.string().min(1).max(MAX_REQUEST_ID_LENGTH), z.int()]);
export type RequestId = z.infer<typeof RequestIdSchema>;

/**
 * A request. `params` may be omitted and then counts as absent. `progress: true` (protocol 1.1, feature
 * `progress`) asks for `progress` events about this request.
 */
export const RequestFrameSchema = z.object({
  id: RequestIdSchema,
  method: z.string().min(1).max(MAX_METHOD_NAME_LENGTH),
  params: z.unknown().optional(),
  progress: z.boolean().optional(),
});
export type RequestFrame = z.infer<typeof RequestFrameSchema>;

/** A response's `id` is the request's, as sent. */
const ResponseIdSchema = z.union([z.string(), z.number()]);
export const SuccessResponseFrameSchema = z.object({ id: ResponseIdSchema, ok: z.literal(true), result: z.unknown() });
export const FailureResponseFrameSchema = z.object({ id: ResponseIdSchema, ok: z.literal(false), error: ProtocolErrorSchema });
/** A response, discriminated by `ok` . */
export const ResponseFrameSchema = z.discriminatedUnion("ok", [SuccessResponseFrameSchema, FailureResponseFrameSchema]);
export type SuccessResponseFrame = z.infer<typeof SuccessResponseFrameSchema>;
export type FailureResponseFrame = z.infer<typeof FailureResponseFrameSchema>;
export type ResponseFrame = z.infer<typeof ResponseFrameSchema>;

/** An event: no `id`, never answered . `seq` is per logical client. */
export const EventFrameSchema = z.object({
  type: z.string().min(1),
  data: z.unknown(),
  seq: z.number().int().nonnegative().optional(),
});
export type EventFrame = z.infer<typeof EventFrameSchema>;

export type Frame = RequestFrame | ResponseFrame | EventFrame;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether a value is a request frame. */
export function isRequest(value: unknown): value is RequestFrame {
  return (
    isObject(value) &&
    (typeof value["id"] === "string" || typeof value["id"] === "number") &&
    typeof value["method"] === "string" &&
    RequestFrameSchema.safeParse(value).success
  );
}

/** Whether a value is a response frame (success or failure). */
export function isResponse(value: unknown): value is ResponseFrame {
  return isObject(value) && typeof value["ok"] === "boolean" && ResponseFrameSchema.safeParse(value).success;
}

/** Whether a value is an event frame. */
export function isEvent(value: unknown): value is EventFrame {
  return isObject(value) && !("id" in value) && "type" in value && EventFrameSchema.safeParse(value).success;
}

/**
 * Parses one frame from text or bytes. Throws a `BridgeError` with code `BAD_REQUEST` when the data is not JSON
 * or not any frame; `details.id` carries the request id when one could be read, so the caller can answer it.
 *
 * @example
 * const frame = parseFrame('{"id":"1","method":"getServerInfo"}');
 */
export function parseFrame(data: string | Uint8Array | ArrayBuffer): Frame {
  const text =
    typeof data === "string" ? data : new TextDecoder().decode(data instanceof ArrayBuffer ? new Uint8Array(data) : data);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BridgeError("BAD_REQUEST", "Frame is not valid JSON");
  }
  if (isRequest(value) || isResponse(value) || isEvent(value)) return value;
  const id = isObject(value) ? readableId(value["id"]) : undefined;
  throw new BridgeError("BAD_REQUEST", "Frame is not a request, response or event", {
    details: id === undefined ? {} : { id },
  });
}

/** Serializes a frame to the JSON text sent on the wire. */
export function serializeFrame(value: Frame): string {
  return JSON.stringify(value);
}

/** What a received value turned out to be, checked without allocating (the WS hot path). */
export type RequestCheck =
  | { readonly ok: true; readonly request: RequestFrame }
  | { readonly ok: false; readonly id: RequestId | undefined; readonly reason: string };

/** The id a request may carry (see {@link RequestIdSchema}), or undefined when it has none the bridge can echo. */
function readableId(id: unknown): RequestId | undefined {
  if (typeof id === "string") return id.length > 0 && id.length <= MAX_REQUEST_ID_LENGTH ? id : undefined;
  return Number.isSafeInteger(id) ? (id as number) : undefined;
}

/**
 * Checks a parsed JSON value against the request shape of {@link RequestFrameSchema} by hand, for speed, and
 * says why it is not one. `id` is returned whenever it can be read so the caller can answer it.
 */
export function checkRequest(value: unknown): RequestCheck {
  if (!isObject(value)) return { ok: false, id: undefined, reason: "a frame must be a JSON object" };
  const { id, method } = value;
  const requestId = readableId(id);
  if (requestId === undefined) {
    return {
      ok: false,
      id: undefined,
      reason: `a request needs an "id": a string of 1–${MAX_REQUEST_ID_LENGTH} characters or a safe integer`,
    };
  }
  if (typeof method !== "string" || method.length === 0 || method.length > MAX_METHOD_NAME_LENGTH) {
    return { ok: false, id: requestId, reason: `a request needs a string "method" of 1–${MAX_METHOD_NAME_LENGTH} characters` };
  }
  return { ok: true, request: value as RequestFrame };
}
