import { DefaultDeserializer, DefaultSerializer } from "node:v8";
import type { EmbeddedDocument } from "./document.js";

/*
 * A document as bytes, for the editor's recovery copies: the whole model (layers with their ids, masks, the PSD
 * records kept for saving, the file it came from) in V8's structured-clone format, which keeps shared references
 * (a record and the map that knows it) as they are. Buffers of `SNAPSHOT_BLOB_MIN_BYTES` or more (pixels, masks, a
 * file's bytes) are not copied into it: they follow it in the file, written straight from the editor's memory.
 */

/**
 * Typed arrays of at least this size are written after the structured part rather than inside it, so taking a
 * snapshot copies only the small rest of the model, however large the document. @default 64 KiB
 */
export const SNAPSHOT_BLOB_MIN_BYTES = 64 * 1024;

/** A document's snapshot: the parts of its file, in order, and their total size. */
export interface DocumentSnapshot {
  readonly parts: readonly ArrayBufferView[];
  readonly bytes: number;
}

/** How a blob is found back: its typed array's constructor and size. */
interface BlobEntry {
  readonly type: string;
  readonly bytes: number;
}

const INLINE = 0;
const BLOB = 1;

const VIEWS: Record<string, new (buffer: ArrayBuffer) => ArrayBufferView> = {
  Uint8Array,
  Uint8ClampedArray,
  Int8Array,
  Uint16Array,
  Int16Array,
  Uint32Array,
  Int32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
};

class BlobSerializer extends DefaultSerializer {
  readonly blobs: ArrayBufferView[] = [];

  // Node's own hook (untyped): typed arrays reach the structured-clone format through it.
  _writeHostObject(object: object): void {
    const view = object as ArrayBufferView;
    const type = view.constructor.name;
    if (ArrayBuffer.isView(view) && view.byteLength >= SNAPSHOT_BLOB_MIN_BYTES && (VIEWS[type] !== undefined || Buffer.isBuffer(view))) {
      this.writeUint32(BLOB);
      this.writeUint32(this.blobs.length);
      this.blobs.push(view);
      return;
    }
    this.writeUint32(INLINE);
    (DefaultSerializer.prototype as unknown as { _writeHostObject(this: DefaultSerializer, object: object): void })._writeHostObject.call(this, object);
  }
}

class BlobDeserializer extends DefaultDeserializer {
  constructor(
    buffer: Buffer,
    private readonly blobs: readonly ArrayBufferView[],
  ) {
    super(buffer);
  }

  _readHostObject(): unknown {
    if (this.readUint32() === BLOB) return this.blobs[this.readUint32()];
    return (DefaultDeserializer.prototype as unknown as { _readHostObject(this: DefaultDeserializer): unknown })._readHostObject.call(this);
  }
}

/**
 * The parts of a document's snapshot file: `[u32 header length][header JSON][structured part][blobs…]`. The blobs
 * are the document's own buffers, not copies: an edit replaces a layer's or a mask's buffer rather than writing
 * into it, so they still hold this state while they are written later; the caller checks that the document did not
 * change meanwhile all the same.
 */
export function snapshotDocument(doc: EmbeddedDocument): DocumentSnapshot {
  const serializer = new BlobSerializer();
  serializer.writeHeader();
  serializer.writeValue({ ...doc, selection: null });
  const structured = serializer.releaseBuffer();
  const blobs: BlobEntry[] = serializer.blobs.map((view) => ({ type: Buffer.isBuffer(view) ? "Buffer" : view.constructor.name, bytes: view.byteLength }));
  const header = Buffer.from(JSON.stringify({ structured: structured.length, blobs }));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  const parts = [length, header, structured, ...serializer.blobs];
  return { parts, bytes: parts.reduce((sum, part) => sum + part.byteLength, 0) };
}

/** The document a snapshot file holds (each blob copied into a buffer of its own). */
export function readSnapshot(file: Buffer): EmbeddedDocument {
  const headerLength = file.readUInt32LE(0);
  const header = JSON.parse(file.subarray(4, 4 + headerLength).toString("utf8")) as { structured: number; blobs: BlobEntry[] };
  let at = 4 + headerLength;
  const structured = file.subarray(at, at + header.structured);
  at += header.structured;
  const blobs = header.blobs.map(({ type, bytes }) => {
    const copy = file.buffer.slice(file.byteOffset + at, file.byteOffset + at + bytes) as ArrayBuffer;
    at += bytes;
    if (type === "Buffer") return Buffer.from(copy);
    const View = VIEWS[type];
    if (View === undefined) throw new Error(`Unknown buffer type ${type} in a recovery copy`);
    return new View(copy);
  });
  const deserializer = new BlobDeserializer(structured, blobs);
  deserializer.readHeader();
  return deserializer.readValue() as EmbeddedDocument;
}
