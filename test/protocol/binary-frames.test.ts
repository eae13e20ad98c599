import { describe, expect, it } from "vitest";
import { decodeBinaryFrame, encodeBinaryHeader, isBinaryPartReference } from "../../src/protocol/index.js";

function message(id: string | number, index: number, payload: number[]): Uint8Array {
  const header = encodeBinaryHeader(id, index);
  const out = new Uint8Array(header.length + payload.length);
  out.set(header);
  out.set(payload, header.length);
  return out;
}

describe("binary message header", () => {
  it("round-trips the request id (UTF-8, numbers as digits), the part index and the payload", () => {
    const decoded = decodeBinaryFrame(message("é-7", 3, [9, 8, 7]));
    expect(decoded).toEqual({ requestId: "é-7", index: 3, payload: new Uint8Array([9, 8, 7]) });
    expect(decodeBinaryFrame(message(42, 0, []))).toEqual({ requestId: "42", index: 0, payload: new Uint8Array([]) });
    // The layout as documented: version 1, index, big-endian id length, the id's bytes.
    expect([...encodeBinaryHeader("ab", 2)]).toEqual([1, 2, 0, 2, 97, 98]);
  });

  it("says why bytes are not a binary message of the bridge", () => {
    expect(decodeBinaryFrame(new Uint8Array([1, 0]))).toMatch(/4-byte header/);
    expect(decodeBinaryFrame(new Uint8Array([2, 0, 0, 1, 65]))).toMatch(/unknown binary header version 2/);
    expect(decodeBinaryFrame(new Uint8Array([1, 0, 0, 9, 65]))).toMatch(/id length 9 does not fit/);
    expect(decodeBinaryFrame(new Uint8Array([1, 0, 0, 0]))).toMatch(/id length 0/);
    expect(decodeBinaryFrame(new Uint8Array([1, 0, 0, 1, 0xff]))).toMatch(/not UTF-8/);
  });

  it("refuses part indexes a byte cannot hold", () => {
    expect(() => encodeBinaryHeader("x", 256)).toThrow(RangeError);
    expect(() => encodeBinaryHeader("x", -1)).toThrow(RangeError);
  });

  it("recognises { binary: n } references, extra fields allowed", () => {
    expect(isBinaryPartReference({ binary: 0 })).toBe(true);
    expect(isBinaryPartReference({ binary: 0, mime: "image/png", bytes: 3 })).toBe(true);
    expect(isBinaryPartReference({ binary: 1.5 })).toBe(false);
    expect(isBinaryPartReference({ binary: 256 })).toBe(false);
    expect(isBinaryPartReference("data:image/png;base64,AA==")).toBe(false);
    expect(isBinaryPartReference([0])).toBe(false);
  });
});
