import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { encodeFrame, FrameDecoder } from "../../../src/hosts/isolated/framing.js";

/** The bytes of a frame as the socket would carry them. */
function wire(message: unknown): Buffer {
  const { head, blobs } = encodeFrame(message);
  return Buffer.concat([head, ...blobs]);
}

/** Feeds `bytes` to a decoder cut at `cuts` (offsets, any order) and returns every message decoded. */
function decodeInChunks(bytes: Buffer, cuts: number[]): unknown[] {
  const out: unknown[] = [];
  const decoder = new FrameDecoder((message) => out.push(message));
  const bounds = [...new Set([0, ...cuts.map((cut) => cut % (bytes.length + 1)), bytes.length])].sort((a, b) => a - b);
  for (let i = 1; i < bounds.length; i++) decoder.push(bytes.subarray(bounds[i - 1], bounds[i]));
  return out;
}

const blob = fc.uint8Array({ maxLength: 300 });
const message = fc.record({
  kind: fc.constantFrom("result", "event"),
  id: fc.nat(),
  value: fc.record({ image: fc.record({ bytes: blob, width: fc.nat() }), extra: fc.array(blob, { maxLength: 4 }), text: fc.string() }),
});

describe("editor channel framing", () => {
  it("messages with several blobs round-trip whatever the chunk boundaries", () => {
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 40 }), (messages, cuts) => {
        const bytes = Buffer.concat(messages.map(wire));
        const decoded = decodeInChunks(bytes, cuts);
        expect(decoded).toHaveLength(messages.length);
        decoded.forEach((got, i) => {
          const want = messages[i]!;
          expect(got).toMatchObject({ kind: want.kind, id: want.id, value: { text: want.value.text, image: { width: want.value.image.width } } });
          const value = (got as typeof want).value;
          expect(Buffer.compare(value.image.bytes, want.value.image.bytes)).toBe(0);
          expect(value.extra.map((b) => Buffer.from(b).toString("hex"))).toEqual(want.value.extra.map((b) => Buffer.from(b).toString("hex")));
        });
      }),
      { numRuns: 300 },
    );
  });

  it("a frame delivered one byte at a time decodes to the same message", () => {
    const bytes = wire({ kind: "event", data: { a: new Uint8Array([1, 2, 3]), b: Buffer.from("xyz"), c: new Uint8Array(0) } });
    const decoded = decodeInChunks(bytes, Array.from({ length: bytes.length }, (_, i) => i));
    expect(decoded).toHaveLength(1);
    const data = (decoded[0] as { data: Record<string, Uint8Array> }).data;
    expect([...data["a"]!]).toEqual([1, 2, 3]);
    expect(Buffer.from(data["b"]!).toString()).toBe("xyz");
    expect(data["c"]!.byteLength).toBe(0);
  });

  it("blobs are written as they are, never copied into the head", () => {
    const bytes = new Uint8Array(1024).fill(7);
    const { head, blobs } = encodeFrame({ kind: "result", value: { bytes } });
    expect(blobs[0]).toBe(bytes);
    expect(head.byteLength).toBeLessThan(100);
  });

  it("a Buffer is never turned into JSON numbers on the way (Buffer#toJSON is not called)", () => {
    const toJSON = vi.spyOn(Buffer.prototype, "toJSON");
    try {
      const { blobs } = encodeFrame({ kind: "event", data: { image: { bytes: Buffer.alloc(4096, 1) } } });
      expect(blobs).toHaveLength(1);
      expect(toJSON).not.toHaveBeenCalled();
    } finally {
      toJSON.mockRestore();
    }
  });

  it("undefined arguments stay undefined and data that looks like a marker stays data", () => {
    const original = { args: [undefined, 3, null], value: { $blob: 0, $undefined: 1, $object: [["x", 1]], nested: [{ $blob: 5 }] } };
    const [decoded] = decodeInChunks(wire(original), []);
    const got = decoded as typeof original;
    expect(got.args).toHaveLength(3);
    expect(got.args[0]).toBeUndefined();
    expect(got.args.slice(1)).toEqual([3, null]);
    expect(got.value).toEqual(original.value);
  });

  it("a corrupt header is refused instead of allocating what it claims", () => {
    const decoder = new FrameDecoder(() => {});
    const header = Buffer.alloc(8);
    header.writeUInt32LE(10, 0);
    header.writeUInt32LE(1_000_000, 4);
    expect(() => decoder.push(header)).toThrow(/Corrupt frame/);
  });
});
