/*
 * A result whose JSON is already known. A method whose answer rarely changes (`getServerInfo`) keeps its JSON, as
 * UTF-8 bytes, with the object it answers, and the WebSocket response is copied from those bytes instead of
 * serializing the object again on every call. Everyone else (HTTP, MCP, batches, plugins) sees the plain object.
 */
import type { RequestId } from "../protocol/index.js";

const BYTES = new WeakMap<object, Buffer>();

/** The `}` that closes a response frame. */
const CLOSING_BRACE = 0x7d;

/** Records `text` as the JSON of `value`, which must not change afterwards: it is frozen. */
export function keepEncoding<T extends object>(value: T, text: string = JSON.stringify(value)): Readonly<T> {
  BYTES.set(Object.freeze(value), Buffer.from(text));
  return value;
}

/**
 * The success response `{"id":…,"ok":true,"result":…}` for a result whose JSON is kept, as UTF-8 bytes: the same
 * bytes as `JSON.stringify({ id, ok: true, result })`, with the result copied rather than serialized (and a socket
 * writes bytes without converting a string). Undefined when the result has no kept JSON.
 */
export function keptAnswerFrame(id: RequestId, result: unknown): Buffer | undefined {
  const body = typeof result === "object" && result !== null ? BYTES.get(result) : undefined;
  if (body === undefined) return undefined;
  // A number id is ASCII, one byte a character, copied by hand (a short string's `Buffer.write` cost more than
  // the loop); a string id may not be ASCII.
  if (typeof id === "number") {
    const head = `{"id":${id},"ok":true,"result":`;
    const frame = Buffer.allocUnsafe(head.length + body.length + 1);
    for (let i = 0; i < head.length; i++) frame[i] = head.charCodeAt(i);
    frame.set(body, head.length);
    frame[frame.length - 1] = CLOSING_BRACE;
    return frame;
  }
  const head = `{"id":${JSON.stringify(id)},"ok":true,"result":`;
  const headBytes = Buffer.byteLength(head);
  const frame = Buffer.allocUnsafe(headBytes + body.length + 1);
  frame.write(head, 0, headBytes, "utf8");
  frame.set(body, headBytes);
  frame[frame.length - 1] = CLOSING_BRACE;
  return frame;
}
