import { describe, expect, it } from "vitest";
import { decryptPayload, deriveKey, encryptPayload } from "../../../src/hosts/photoshop/crypto.js";
import { CONTENT, FrameDecoder, FramingError, encodeFrame, type Message } from "../../../src/hosts/photoshop/framing.js";
import { PIXMAP_FORMAT, PixmapError, decodePixmap } from "../../../src/hosts/photoshop/pixmap.js";
import { paramsLiteral, paramsPrefix } from "../../../src/hosts/photoshop/operations.js";
import { frame, pixmapBody, SDK_IV } from "../../fakes/photoshop/wire.js";

describe("Remote Connections codec", () => {
  it("derives the published keys from passwords", () => {
    expect(deriveKey("Swordfish").toString("hex")).toBe("e44a93c04d79bf2e937191a63dbdde05bb15c2011498e1fb");
    expect(deriveKey("password").toString("hex")).toBe("5b2d446a8c34ee44fd5910c8ff867c99ab9b26619c686d45");
  });

  it("encodes `1+1` exactly as the published test vector", () => {
    const bytes = encodeFrame(deriveKey("Swordfish"), 1, CONTENT.JAVASCRIPT, Buffer.from("1+1"));
    expect(bytes.toString("hex")).toBe("00000014" + "00000000" + "99a3e1901f62a8ae67cf568abef3b5f2");
  });

  it("a wrong key fails to decrypt instead of returning garbage", () => {
    const sealed = encryptPayload(deriveKey("right"), Buffer.from("hello, photoshop"));
    expect(() => decryptPayload(deriveKey("wrong"), sealed)).toThrow();
  });

  it("splits frames that arrive one byte at a time or several per chunk, with the SDK IV on the far side", () => {
    const key = deriveKey("password");
    const got: Message[] = [];
    const decoder = new FrameDecoder(key, 1 << 20, (m) => got.push(m));
    // The fake encrypts with the SDK's zero IV; the ids it echoes come back intact through the XOR (B.4).
    const a = frame(key, SDK_IV, 7 ^ 0x5d260000, 2, Buffer.from("first"));
    const b = frame(key, SDK_IV, 8 ^ 0x5d260000, 2, Buffer.from("second\rwith CR"));
    for (const byte of a) decoder.push(Buffer.from([byte]));
    decoder.push(Buffer.concat([b, a]));
    expect(got.map((m) => [m.id, m.type, m.body.toString()])).toEqual([
      [7, 2, "first"],
      [8, 2, "second\rwith CR"],
      [7, 2, "first"],
    ]);
  });

  it("reports non-zero status frames and refuses impossible lengths", () => {
    const got: Message[] = [];
    const decoder = new FrameDecoder(deriveKey("x"), 1024, (m) => got.push(m));
    decoder.push(Buffer.from("0000000400000001", "hex"));
    expect(got[0]).toMatchObject({ status: 1 });
    expect(() => new FrameDecoder(null, 1024, () => {}).push(Buffer.from("0000000200000000", "hex"))).toThrow(FramingError);
    expect(() => new FrameDecoder(null, 1024, () => {}).push(Buffer.from("0001000000000000", "hex"))).toThrow(FramingError);
  });
});

describe("pixmaps", () => {
  it("decodes A,R,G,B rows into RGBA, skipping row padding", () => {
    const body = pixmapBody(4, 4, (x, y) => (x === 0 && y === 0 ? [255, 255, 0, 0] : [128, x, y, 9]), 12);
    expect(body.readUInt32BE(9)).toBe(28);
    const pixmap = decodePixmap(body, 100);
    expect([pixmap.width, pixmap.height, pixmap.rgba.length]).toEqual([4, 4, 64]);
    expect([...pixmap.rgba.subarray(0, 4)]).toEqual([255, 0, 0, 255]);
    const last = 4 * (3 * 4 + 3);
    expect([...pixmap.rgba.subarray(last, last + 4)]).toEqual([3, 3, 9, 128]);
  });

  it("refuses pixmaps above the pixel cap and truncated bodies", () => {
    const body = pixmapBody(4, 4, () => [255, 1, 2, 3], 0);
    expect(() => decodePixmap(body, 15)).toThrow(PixmapError);
    expect(() => decodePixmap(body.subarray(0, 40), 100)).toThrow(PixmapError);
  });
});

describe("script parameters", () => {
  it("cannot break out of the params literal", () => {
    const evil = 'x"}; app.quit(); var y = {"a":"\u2028\u2029</script>\\';
    const literal = paramsLiteral({ name: evil });
    expect(literal).not.toMatch(/[\u2028\u2029]/);
    expect(JSON.parse(literal)).toEqual({ name: evil });
    expect(paramsPrefix({ a: 1 })).toBe('var params = {"a":1};\n');
  });

  it("a 3-channel pixmap is read B,G,R, as generator-core reads it", () => {
    const header = Buffer.alloc(16);
    header.writeUInt8(PIXMAP_FORMAT, 0);
    header.writeUInt32BE(2, 1);
    header.writeUInt32BE(1, 5);
    header.writeUInt32BE(6, 9);
    header.writeUInt8(1, 13);
    header.writeUInt8(3, 14);
    header.writeUInt8(8, 15);
    const body = Buffer.concat([header, Buffer.from([0x33, 0x22, 0x11, 0x00, 0x00, 0xff])]);
    expect([...decodePixmap(body, 100).rgba]).toEqual([0x11, 0x22, 0x33, 255, 0xff, 0x00, 0x00, 255]);
  });
});
