/*
 * Binary messages of a WebSocket connection that negotiated the `binary` feature (`?binary=1`): an image result's
 * bytes after its JSON response (a result holding several images, such as `template:render`'s variants, numbers
 * them 0, 1, … in the JSON's order and sends them in that order), and an image a request attaches
 * (`{ "binary": n }` in its params) after the JSON request. Each binary message starts with a short header naming
 * the request, then the bytes as they are:
 *
 *   byte 0        layout version: 1
 *   byte 1        n, which binary part of that request this is (0 for the first)
 *   bytes 2–3     L, the length in bytes of the request id's text (unsigned, big-endian)
 *   bytes 4…4+L   the request id's text in UTF-8 (a numeric id as its decimal digits)
 *   bytes 4+L…    the payload, to the end of the message
 *
 * No imports: the client SDK loads this file in browsers.
 */

/** Name of the feature in the `connected` handshake's `features` and of the query parameter that asks for it. */
export const BINARY_FEATURE = "binary";

/** Version of the header layout above, in its first byte. */
export const BINARY_FRAME_VERSION = 1;

/** Bytes of the header before the request id: version, part index, id length. */
export const BINARY_HEADER_FIXED_BYTES = 4;

/** The part index is one byte. */
export const MAX_BINARY_PART_INDEX = 255;

/** Binary parts one request or answer can number (0 to {@link MAX_BINARY_PART_INDEX}). */
export const MAX_BINARY_PARTS = MAX_BINARY_PART_INDEX + 1;

/** A binary message split into what its header says and its payload (a view on the message, not a copy). */
export interface BinaryFrame {
  readonly requestId: string;
  readonly index: number;
  readonly payload: Uint8Array;
}

/** `{ "binary": n }`: a param or result field whose bytes travel as binary part `n` of the same request. */
export interface BinaryPartReference {
  readonly binary: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** The header of binary part `index` of request `requestId` (payload not included). */
export function encodeBinaryHeader(requestId: string | number, index: number): Uint8Array {
  if (!Number.isInteger(index) || index < 0 || index > MAX_BINARY_PART_INDEX) {
    throw new RangeError(`binary part index must be 0–${MAX_BINARY_PART_INDEX}, got ${index}`);
  }
  const id = encoder.encode(String(requestId));
  if (id.length > 0xffff) throw new RangeError("request id is too long for a binary header");
  const header = new Uint8Array(BINARY_HEADER_FIXED_BYTES + id.length);
  header[0] = BINARY_FRAME_VERSION;
  header[1] = index;
  header[2] = id.length >> 8;
  header[3] = id.length & 0xff;
  header.set(id, BINARY_HEADER_FIXED_BYTES);
  return header;
}

/** Reads a binary message's header; a string says why the message is not one (short, unknown version, bad UTF-8). */
export function decodeBinaryFrame(message: Uint8Array): BinaryFrame | string {
  if (message.length < BINARY_HEADER_FIXED_BYTES) return `a binary message needs a ${BINARY_HEADER_FIXED_BYTES}-byte header, got ${message.length} bytes`;
  if (message[0] !== BINARY_FRAME_VERSION) return `unknown binary header version ${message[0]} (expected ${BINARY_FRAME_VERSION})`;
  const idLength = (message[2]! << 8) | message[3]!;
  const end = BINARY_HEADER_FIXED_BYTES + idLength;
  if (idLength === 0 || end > message.length) return `the binary header's request id length ${idLength} does not fit the message`;
  let requestId: string;
  try {
    requestId = decoder.decode(message.subarray(BINARY_HEADER_FIXED_BYTES, end));
  } catch {
    return "the binary header's request id is not UTF-8";
  }
  return { requestId, index: message[1]!, payload: message.subarray(end) };
}

/** Whether a value is a `{ "binary": n }` reference (other fields, such as a result's `mime` and `bytes`, allowed). */
export function isBinaryPartReference(value: unknown): value is BinaryPartReference {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const n = (value as { binary?: unknown }).binary;
  return typeof n === "number" && Number.isInteger(n) && n >= 0 && n <= MAX_BINARY_PART_INDEX;
}
