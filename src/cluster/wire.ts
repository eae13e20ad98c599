/*
 * One message between bridges: a JSON header and binary parts (images, import bytes) after it, never base64:
 *
 *   u32 header length (big-endian) · header JSON (UTF-8, with `parts`: each part's length) · part 0 · part 1 …
 */
import { BridgeError } from "../protocol/index.js";

export interface Frame<H extends object = Record<string, unknown>> {
  readonly header: H;
  readonly parts: readonly Uint8Array[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeFrame(header: object, parts: readonly Uint8Array[] = []): Uint8Array {
  const head = encoder.encode(JSON.stringify({ ...header, parts: parts.map((p) => p.byteLength) }));
  const out = new Uint8Array(4 + head.byteLength + parts.reduce((n, p) => n + p.byteLength, 0));
  new DataView(out.buffer).setUint32(0, head.byteLength);
  out.set(head, 4);
  let at = 4 + head.byteLength;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** @throws BridgeError `INTERNAL` for bytes that are not a frame (a peer of another version, or a bug). */
export function decodeFrame<H extends object>(bytes: Uint8Array): Frame<H> {
  const bad = (why: string): BridgeError => new BridgeError("INTERNAL", `A message from another bridge could not be read: ${why}`);
  if (bytes.byteLength < 4) throw bad("too short");
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0);
  if (4 + length > bytes.byteLength) throw bad("its header runs past its end");
  let header: H & { parts?: unknown };
  try {
    header = JSON.parse(decoder.decode(bytes.subarray(4, 4 + length))) as H & { parts?: unknown };
  } catch {
    throw bad("its header is not JSON");
  }
  const lengths = Array.isArray(header.parts) ? (header.parts as unknown[]) : [];
  const parts: Uint8Array[] = [];
  let at = 4 + length;
  for (const n of lengths) {
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || at + n > bytes.byteLength) throw bad("a part runs past its end");
    parts.push(bytes.subarray(at, at + n));
    at += n;
  }
  return { header, parts };
}
