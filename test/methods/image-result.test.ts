import { describe, expect, it } from "vitest";
import { imageResultJson, LARGE_IMAGE_BYTES, WireImage } from "../../src/methods/image-result.js";

describe("imageResultJson", () => {
  it("equals JSON.stringify of the image result, for sizes around every slice boundary", async () => {
    for (const size of [0, 1, 2, 3, 4, 786_431, 786_432, 786_433, LARGE_IMAGE_BYTES + 5, 3 * 786_432 + 2]) {
      const bytes = new Uint8Array(size);
      for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >> 8)) & 255;
      const image = new WireImage({ bytes, format: "png", width: 7, height: 3, bounds: { left: 1, top: 2, right: 8, bottom: 5 } });
      const built = await imageResultJson(image, '{"id":"x\\"y","ok":true,"result":', "}");
      expect(built.toString("utf8")).toBe(JSON.stringify({ id: 'x"y', ok: true, result: image }));
    }
  });
});
