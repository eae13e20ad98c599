/*
 * The frame of one message between the bridge and its editor process. No base64 and no concatenation of pixels:
 *
 *   [u32 json length][u32 blob count][u32 length of each blob …][json, UTF-8][blob 0 bytes][blob 1 bytes] …
 *
 * (little-endian). Every `Uint8Array` (a `Buffer` too) found in the message is taken out and replaced in the JSON by
 * `{"$blob": i}`; the receiver puts a fresh buffer of its own in its place.
 *
 * Copies of a blob in user space: none on the sending side (`socket.write(blob)` hands the blob's own memory to the
 * kernel, which copies it into the socket), exactly one on the receiving side (from the chunks the socket delivers
 * into the one buffer allocated for that blob). The header and JSON are small and written as one buffer.
 *
 * A sender given a spill writer (the editor process) writes blobs of at least its `minBytes` as files in shared memory
 * instead, marked `{"$file": [name, bytes]}`; the receiver hands those to its owner as {@link SpilledBlob}s to read
 * and put in place (see `spill.ts`). A receiver that was not told to accept them refuses the frame.
 *
 * Besides plain JSON, a message may hold `undefined` array elements (arguments such as `getDocument(ctx, undefined)`)
 * as `{"$undefined": 1}`. An object of the message that itself has a key named `$blob`, `$undefined` or `$object`
 * (or `$file`; a script may return anything) travels as `{"$object": [[key, value], …]}`, so no data is ever mistaken for a
 * marker.
 */

/** Most blobs one message may carry; a larger count means a corrupt stream. */
export const MAX_FRAME_BLOBS = 4096;

/** Largest JSON part of one message (script results are capped at 8 MiB; document trees are far smaller). */
export const MAX_FRAME_JSON_BYTES = 256 * 1024 * 1024;

/** Largest blob: lengths are u32. */
export const MAX_BLOB_BYTES = 0xffff_ffff;

const BLOB = "$blob";
const UNDEFINED = "$undefined";
const OBJECT = "$object";
const FILE = "$file";
const RESERVED = [BLOB, UNDEFINED, OBJECT, FILE];

/** Writes a large blob somewhere the receiver can read it, answering its name (see `spill.ts`). */
export interface BlobSpill {
  readonly minBytes: number;
  write(blob: Uint8Array): string | undefined;
}

/** A blob the sender spilled: the receiver reads it and sets `holder[key]` to its bytes before using the message. */
export interface SpilledBlob {
  readonly holder: Record<string, unknown> | unknown[];
  readonly key: string;
  readonly name: string;
  readonly bytes: number;
}

/** A message ready to write: one small head buffer (header and JSON), then each blob as it is. */
export interface EncodedFrame {
  readonly head: Buffer;
  readonly blobs: readonly Uint8Array[];
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Encodes a message; blobs are referenced, never copied.
 *
 * @throws Error when a blob is larger than {@link MAX_BLOB_BYTES} or there are more than {@link MAX_FRAME_BLOBS}.
 */
export function encodeFrame(message: unknown, spill?: BlobSpill): EncodedFrame {
  const blobs: Uint8Array[] = [];
  const json = JSON.stringify(withMarkers(message, blobs, spill)) ?? "null";
  if (blobs.length > MAX_FRAME_BLOBS) throw new Error(`A message may carry at most ${MAX_FRAME_BLOBS} blobs`);
  const jsonBytes = Buffer.byteLength(json);
  const headerBytes = 8 + 4 * blobs.length;
  const head = Buffer.allocUnsafe(headerBytes + jsonBytes);
  head.writeUInt32LE(jsonBytes, 0);
  head.writeUInt32LE(blobs.length, 4);
  for (const [i, blob] of blobs.entries()) head.writeUInt32LE(blob.byteLength, 8 + 4 * i);
  head.write(json, headerBytes, "utf8");
  return { head, blobs };
}

/**
 * The message as `JSON.stringify` may write it: blobs (pushed to `blobs`) and `undefined` elements become markers,
 * objects with a reserved key are escaped. Untouched parts are returned as they are, so a message without blobs is
 * not copied. A walk before `JSON.stringify` rather than a replacer: the replacer would see a `Buffer` only after its
 * `toJSON` turned 5 MB into an array of 5 million numbers, and calling it for every value costs more than the walk.
 */
function withMarkers(value: unknown, blobs: Uint8Array[], spill: BlobSpill | undefined): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (value instanceof Uint8Array) {
    const name = spill !== undefined && value.byteLength >= spill.minBytes ? spill.write(value) : undefined;
    if (name !== undefined) return { [FILE]: [name, value.byteLength] };
    if (value.byteLength > MAX_BLOB_BYTES) throw new Error(`A blob of ${value.byteLength} bytes is too large for one frame`);
    return { [BLOB]: blobs.push(value) - 1 };
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const out = item === undefined ? { [UNDEFINED]: 1 } : withMarkers(item, blobs, spill);
      if (out !== item) {
        copy ??= value.slice();
        copy[i] = out;
      }
    }
    return copy ?? value;
  }
  // Dates and the like serialize themselves.
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return value;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    const out = withMarkers(item, blobs, spill);
    if (out !== item) {
      copy ??= { ...value };
      copy[key] = out;
    }
  }
  const result = copy ?? (value as Record<string, unknown>);
  if (RESERVED.some((key) => Object.hasOwn(result, key))) {
    return { [OBJECT]: Object.entries(result).filter(([, item]) => item !== undefined) };
  }
  return result;
}

type Phase = "header" | "lengths" | "json" | "blob";

/**
 * Reassembles messages from socket chunks split anywhere. Each part has a target buffer of its final size, and every
 * incoming byte is copied once into its target.
 *
 * @example
 * const decoder = new FrameDecoder((message) => handle(message));
 * socket.on("data", (chunk) => decoder.push(chunk));
 */
export class FrameDecoder {
  private phase: Phase = "header";
  private target: Buffer = Buffer.allocUnsafe(8);
  private filled = 0;
  private jsonBytes = 0;
  private blobLengths: number[] = [];
  private json = "";
  private blobs: Buffer[] = [];

  /**
   * @param onMessage gets each message, with the blobs its sender spilled (empty unless `acceptSpilled`).
   * @param acceptSpilled whether the sender may spill blobs (the bridge's side of an editor process with a folder).
   */
  constructor(
    private readonly onMessage: (message: unknown, spilled: readonly SpilledBlob[]) => void,
    private readonly acceptSpilled = false,
  ) {}

  /**
   * Consumes one chunk, calling `onMessage` for every message it completes.
   * @throws Error on a header no encoder writes (corrupt stream); the decoder is then unusable.
   */
  push(chunk: Uint8Array): void {
    let offset = 0;
    while (offset < chunk.byteLength || this.filled === this.target.byteLength) {
      if (this.filled === this.target.byteLength) {
        this.advance();
        continue;
      }
      const count = Math.min(this.target.byteLength - this.filled, chunk.byteLength - offset);
      if (this.phase === "json" && this.filled === 0 && count === this.target.byteLength) {
        // The whole JSON lies in this chunk: decode it where it is.
        this.json = Buffer.from(chunk.buffer, chunk.byteOffset + offset, count).toString("utf8");
        offset += count;
        this.afterJson();
        continue;
      }
      this.target.set(chunk.subarray(offset, offset + count), this.filled);
      this.filled += count;
      offset += count;
    }
  }

  /** The current target is full: move to the next part (or finish the message). */
  private advance(): void {
    const full = this.target;
    this.filled = 0;
    switch (this.phase) {
      case "header": {
        this.jsonBytes = full.readUInt32LE(0);
        const count = full.readUInt32LE(4);
        if (count > MAX_FRAME_BLOBS) throw new Error(`Corrupt frame: ${count} blobs`);
        if (this.jsonBytes > MAX_FRAME_JSON_BYTES) throw new Error(`Corrupt frame: ${this.jsonBytes} bytes of JSON`);
        this.phase = "lengths";
        this.target = Buffer.allocUnsafe(4 * count);
        return;
      }
      case "lengths":
        this.blobLengths = Array.from({ length: full.byteLength / 4 }, (_, i) => full.readUInt32LE(4 * i));
        this.phase = "json";
        this.target = Buffer.allocUnsafe(this.jsonBytes);
        return;
      case "json":
        this.json = full.toString("utf8");
        this.afterJson();
        return;
      case "blob":
        this.blobs.push(full);
        this.nextBlob();
        return;
    }
  }

  private afterJson(): void {
    this.filled = 0;
    this.phase = "blob";
    this.blobs = [];
    this.nextBlob();
  }

  /** Targets the next blob's own buffer, or finishes the message when all blobs are in. */
  private nextBlob(): void {
    const length = this.blobLengths[this.blobs.length];
    if (length !== undefined) {
      // Not from the shared pool: the blob may outlive this message for long (a layer's pixels).
      this.target = Buffer.allocUnsafeSlow(length);
      return;
    }
    const spilled: SpilledBlob[] = [];
    const message = reviveMessage(this.json, this.blobs, this.acceptSpilled ? spilled : undefined);
    this.phase = "header";
    this.target = Buffer.allocUnsafe(8);
    this.json = "";
    this.blobs = [];
    this.onMessage(message, spilled);
  }
}

/**
 * Parses the JSON part, putting each blob back where its marker stands; spilled blobs are listed in `spilled` (a
 * receiver that accepts none passes undefined and a `$file` marker is refused).
 */
function reviveMessage(json: string, blobs: readonly Buffer[], spilled: SpilledBlob[] | undefined): unknown {
  // Markers only exist where the encoder wrote them; most messages (calls, small results) have none.
  if (blobs.length === 0 && !json.includes(`"$`)) return JSON.parse(json);
  // A function, not an arrow: the reviver's `this` is the object holding `key`, where a spilled blob will go.
  return JSON.parse(json, function (this: Record<string, unknown> | unknown[], key: string, value: unknown) {
    if (!isPlainRecord(value)) return value;
    if (Object.hasOwn(value, FILE)) {
      const [name, bytes] = value[FILE] as [unknown, unknown];
      if (spilled === undefined || typeof name !== "string" || typeof bytes !== "number") throw new Error("Corrupt frame: an unexpected spilled blob");
      spilled.push({ holder: this, key, name, bytes });
      return null;
    }
    if (Object.hasOwn(value, BLOB)) {
      const blob = blobs[value[BLOB] as number];
      if (blob === undefined) throw new Error("Corrupt frame: a marker names a missing blob");
      return blob;
    }
    // Returning undefined from a reviver leaves a hole, which reads as `undefined`.
    if (Object.hasOwn(value, UNDEFINED)) return undefined;
    if (Object.hasOwn(value, OBJECT)) {
      const entries = value[OBJECT] as Array<[string, unknown]>;
      const object = Object.fromEntries(entries);
      // A spilled blob revived inside an entry pair goes into the object built from the pairs.
      for (const blob of spilled ?? []) {
        const entry = entries.indexOf(blob.holder as [string, unknown]);
        if (entry !== -1) Object.assign(blob, { holder: object, key: entries[entry]![0] });
      }
      return object;
    }
    return value;
  });
}
