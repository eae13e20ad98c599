import { describe, expect, it } from "vitest";
import { decodeFrame, encodeFrame } from "../../src/cluster/wire.js";

describe("messages between bridges", () => {
  it("carry a JSON header and binary parts as they are", () => {
    const parts = [new Uint8Array([1, 2, 3]), new Uint8Array(0), new Uint8Array([255])];
    const { header, parts: read } = decodeFrame<{ t: string; n: number }>(encodeFrame({ t: "call", n: 7 }, parts));
    expect(header).toMatchObject({ t: "call", n: 7, parts: [3, 0, 1] });
    expect(read.map((p) => [...p])).toEqual([[1, 2, 3], [], [255]]);
  });

  it("bytes that are not a message are refused with a reason, not read past their end", () => {
    const good = encodeFrame({ t: "call" }, [new Uint8Array([1, 2, 3])]);
    const cases: Array<[Uint8Array, RegExp]> = [
      [new Uint8Array([0, 0]), /too short/],
      [new Uint8Array([0, 0, 1, 0, 123]), /header runs past its end/],
      [Uint8Array.from([0, 0, 0, 3, ...new TextEncoder().encode("{x}")]), /header is not JSON/],
      [good.subarray(0, good.byteLength - 1), /a part runs past its end/],
    ];
    for (const [bytes, reason] of cases) {
      expect(() => decodeFrame(bytes)).toThrow(reason);
      try {
        decodeFrame(bytes);
      } catch (error) {
        expect(error).toMatchObject({ code: "INTERNAL" });
      }
    }
  });
});
