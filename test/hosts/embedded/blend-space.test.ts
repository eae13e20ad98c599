import { describe, expect, test } from "vitest";
import { renderDocument } from "../../../src/hosts/embedded/composite.js";
import { ContentBuilder, type SourceColor } from "../../../src/hosts/embedded/document.js";
import { encodeDocument } from "../../../src/hosts/embedded/encode.js";
import { labToRgb, linearToSrgb, rgbToLab, srgbToLinear } from "../../../src/hosts/embedded/psd-file/color.js";
import { solidRaster } from "../../../src/hosts/embedded/raster.js";
import sharp from "sharp";

/** The edge's coverage: alpha 128. */
const A = 128 / 255;
const PINK = [227, 67, 67] as const;

/** The pink mixed with white by `A`, each channel in linear light. */
const linearMix = PINK.map((v) => Math.round(255 * linearToSrgb(A * srgbToLinear(v / 255) + (1 - A))));

/** The pink mixed with white by `A` in Lab (by the editor's stated Lab conversions). */
function labMix(): number[] {
  const pink = [0, 0, 0];
  const white = [0, 0, 0];
  rgbToLab(PINK[0], PINK[1], PINK[2], pink);
  rgbToLab(255, 255, 255, white);
  const mixed = pink.map((v, c) => A * v + (1 - A) * (white[c] ?? 0));
  const out = [0, 0, 0];
  labToRgb(mixed[0] ?? 0, mixed[1] ?? 0, mixed[2] ?? 0, out);
  return out;
}

/** A white background under one half-transparent pink pixel (a shape's anti-aliased edge), in a file of `source`. */
function edgeDocument(source?: SourceColor) {
  const builder = new ContentBuilder(1, 1);
  const background = builder.pixel("Background", solidRaster(1, 1, [255, 255, 255, 255]), { kind: "background" });
  const edge = builder.pixel("Shape", solidRaster(1, 1, [...PINK, 128]));
  return { ...builder.build([edge, background], [edge.id]), ...(source ? { sourceColor: source } : {}) };
}

const pixel = (doc: ReturnType<typeof edgeDocument>): number[] => [...renderDocument(doc).data.subarray(0, 3)];

describe("documents mix colours in the space they were made in", () => {
  test("an 8-bit RGB document mixes an edge in sRGB", () => {
    expect(pixel(edgeDocument())).toEqual([241, 161, 161]);
  });

  test("a 32-bit document mixes an edge in linear light, as Photoshop's composites of 32-bit files show", () => {
    // sRGB 67 is 0.056 in linear light: about half of it plus half of white is sRGB 192, not 161.
    expect(linearMix[1]).toBe(192);
    expect(pixel(edgeDocument({ mode: "rgb", depth: 32 }))).toEqual(linearMix);
  });

  test("a Lab document mixes an edge in Lab: lightness and the colour axes each half way", () => {
    const mixed = pixel(edgeDocument({ mode: "lab", depth: 8 }));
    expect(mixed).toEqual(labMix());
    expect(mixed[1]).toBeGreaterThan(161 + 3);
    // CMYK documents still mix in sRGB (their own mix needs the original inks).
    expect(pixel(edgeDocument({ mode: "cmyk", depth: 8 }))).toEqual([241, 161, 161]);
  });

  test("the export of such a document mixes the same way (the fast path for plain stacks is not taken)", async () => {
    const doc = { ...edgeDocument({ mode: "rgb", depth: 32 }), id: 1, name: "edge", isDirty: false, revision: 0, filePath: undefined, selection: null };
    const image = await encodeDocument(doc, { format: "png", size: { width: 1, height: 1 } });
    const { data } = await sharp(Buffer.from(image.bytes)).raw().toBuffer({ resolveWithObject: true });
    expect([...data.subarray(0, 3)]).toEqual(linearMix);
  });
});
