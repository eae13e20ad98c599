/**
 * The embedded editor's destructive operations (`layer:adjust`, `filter:apply`), called on the editor directly:
 * the blurs against a float reference convolution written here (mean |Δ| ≤ 1 level, max ≤ 3), the noise's mean and
 * standard deviation against what was asked (within 5 %), an adjustment rendered as the adjustment layer's record
 * renders it, and the selection honoured. One editor for the file, small images.
 */
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EditOp } from "../../../src/hosts/edits.js";
import type { HostAdapter } from "../../../src/hosts/host.js";
import type { ResolvedFilter } from "../../../src/protocol/adjustments.js";
import { connectedHost, ctx, exportLayer, importBytes, rawPixels } from "./helpers.js";

const W = 48;
const H = 36;

/** A test picture: two gradients crossed, a bright square with hard edges and a deterministic speckle. */
function testPicture(): Buffer {
  const data = Buffer.alloc(W * H * 4);
  let seed = 7;
  const next = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 4;
      const square = x >= 16 && x < 30 && y >= 10 && y < 24;
      data[i] = square ? 240 : Math.round((x / (W - 1)) * 200 + next() * 40);
      data[i + 1] = square ? 30 : Math.round((y / (H - 1)) * 220);
      data[i + 2] = Math.round(next() * 255);
      data[i + 3] = 255;
    }
  }
  return data;
}

/** A symmetric kernel run along rows, then columns, in floats, edges repeating: the reference. */
function reference(src: Buffer, taps: readonly number[]): Float64Array {
  const half = (taps.length - 1) / 2;
  const a = new Float64Array(src.length);
  const b = new Float64Array(src.length);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++)
      for (let c = 0; c < 4; c++) {
        let v = 0;
        for (let t = -half; t <= half; t++) v += taps[t + half]! * src[(y * W + Math.min(W - 1, Math.max(0, x + t))) * 4 + c]!;
        a[(y * W + x) * 4 + c] = v;
      }
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++)
      for (let c = 0; c < 4; c++) {
        let v = 0;
        for (let t = -half; t <= half; t++) v += taps[t + half]! * a[(Math.min(H - 1, Math.max(0, y + t)) * W + x) * 4 + c]!;
        b[(y * W + x) * 4 + c] = v;
      }
  return b;
}

/** The exact Gaussian of standard deviation σ, to 5σ, normalised. */
function gaussianTaps(sigma: number): number[] {
  const half = Math.ceil(5 * sigma);
  const taps = Array.from({ length: 2 * half + 1 }, (_, i) => Math.exp(-((i - half) ** 2) / (2 * sigma * sigma)));
  const sum = taps.reduce((s, v) => s + v, 0);
  return taps.map((v) => v / sum);
}

/** Mean and largest |Δ| over the colour channels. */
function difference(actual: Buffer, expected: ArrayLike<number>): { mean: number; max: number } {
  let sum = 0;
  let max = 0;
  let n = 0;
  for (let i = 0; i < actual.length; i++) {
    if (i % 4 === 3) continue;
    const d = Math.abs(actual[i]! - expected[i]!);
    sum += d;
    max = Math.max(max, d);
    n++;
  }
  return { mean: sum / n, max };
}

let host: HostAdapter;
let documentId: number;
let picture: Buffer;

beforeAll(async () => {
  host = await connectedHost();
  const doc = await host.createDocument!(ctx(), { width: W, height: H, name: "Filters", background: [255, 255, 255, 255] });
  documentId = doc.id;
  picture = testPicture();
});
afterAll(async () => {
  await host.close();
});

const edit = (e: EditOp) => host.edit!(ctx(), { documentId, edit: e });

/** A fresh layer of the test picture (or `pixels`), answering its id. */
async function pictureLayer(pixels: Buffer = picture): Promise<number> {
  const png = await sharp(pixels, { raw: { width: W, height: H, channels: 4 } }).png().toBuffer();
  return importBytes(host, png, { documentId, name: "Picture" });
}

async function pixelsOf(layerId: number): Promise<Buffer> {
  const image = await rawPixels((await exportLayer(host, layerId, documentId)).bytes);
  expect([image.width, image.height]).toEqual([W, H]);
  return image.data;
}

async function filtered(filter: ResolvedFilter, pixels?: Buffer): Promise<Buffer> {
  const id = await pictureLayer(pixels);
  await edit({ op: "filter:apply", layerId: id, filter });
  return pixelsOf(id);
}

describe("blurs against a float reference convolution", () => {
  const report: string[] = [];
  afterAll(() => console.log(`filters vs reference (mean / max |Δ|, levels): ${report.join("; ")}`));

  it.each([0.2, 1, 2.5, 4, 5.9, 6, 7, 10])("gaussian blur σ = %s", async (sigma) => {
    const d = difference(await filtered({ type: "gaussianBlur", radius: sigma }), reference(picture, gaussianTaps(sigma)));
    report.push(`gaussian σ ${sigma}: ${d.mean.toFixed(3)} / ${d.max}`);
    expect(d.mean).toBeLessThanOrEqual(1);
    expect(d.max).toBeLessThanOrEqual(3);
  });

  it.each([1, 3, 7])("box blur radius %s", async (radius) => {
    const d = difference(await filtered({ type: "boxBlur", radius }), reference(picture, Array.from({ length: 2 * radius + 1 }, () => 1 / (2 * radius + 1))));
    report.push(`box r ${radius}: ${d.mean.toFixed(3)} / ${d.max}`);
    expect(d.mean).toBeLessThanOrEqual(1);
    expect(d.max).toBeLessThanOrEqual(3);
  });
});

describe("noise has the mean and spread asked", () => {
  // 12 288 pixels (its own document): the mean of one draw per pixel (monochromatic) is then within 1 % of σ with
  // five standard errors to spare, and the spread within 0.7 % per standard error.
  const [NW, NH] = [128, 96];
  // amount 8 % of 255: a standard deviation of 20.4 levels, far from clipping at 0 or 255 around 128.
  it.each([
    { distribution: "gaussian" as const, monochromatic: false, sigma: 0.08 * 255 },
    { distribution: "uniform" as const, monochromatic: false, sigma: (0.08 * 255) / Math.sqrt(3) },
    { distribution: "gaussian" as const, monochromatic: true, sigma: 0.08 * 255 },
    { distribution: "uniform" as const, monochromatic: true, sigma: (0.08 * 255) / Math.sqrt(3) },
  ])("$distribution, monochromatic $monochromatic", async ({ distribution, monochromatic, sigma }) => {
    const doc = await host.createDocument!(ctx(), { width: NW, height: NH, name: "Noise", background: [128, 128, 128, 255] });
    const [layer] = (await host.getDocumentTree(ctx(), doc.id)).layers;
    await host.edit!(ctx(), { documentId: doc.id, edit: { op: "filter:apply", layerId: layer!.id, filter: { type: "addNoise", amount: 8, distribution, monochromatic } } });
    const out = (await rawPixels((await exportLayer(host, layer!.id, doc.id)).bytes)).data;
    expect(out.length).toBe(NW * NH * 4);
    const added = [...out].filter((_, i) => i % 4 !== 3 && (!monochromatic || i % 4 === 0)).map((v) => v - 128);
    const mean = added.reduce((s, v) => s + v, 0) / added.length;
    const sd = Math.sqrt(added.reduce((s, v) => s + (v - mean) ** 2, 0) / added.length);
    console.log(`noise ${distribution}${monochromatic ? " mono" : ""}: mean ${mean.toFixed(2)} (asked 0), σ ${sd.toFixed(2)} (asked ${sigma.toFixed(2)})`);
    expect(Math.abs(mean)).toBeLessThanOrEqual(0.05 * sigma);
    expect(Math.abs(sd - sigma) / sigma).toBeLessThanOrEqual(0.05);
    if (monochromatic) for (let i = 0; i < out.length; i += 4) expect(out[i] === out[i + 1] && out[i] === out[i + 2]).toBe(true);
  });
});

describe("adjustments and the selection", () => {
  it("invert inside a selection changes only what is selected", async () => {
    const id = await pictureLayer();
    await host.setSelection!(ctx(), { documentId, shape: { kind: "rect", rect: { x: 10, y: 5, width: 20, height: 10 } } });
    const before = await pixelsOf(id);
    await edit({ op: "layer:adjust", layerId: id, adjustment: { type: "invert" } });
    const after = await pixelsOf(id);
    const selection = await host.getSelection(ctx(), documentId);
    expect(selection).toEqual({ x: 10, y: 5, width: 20, height: 10 });
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const inside = selection !== null && x >= selection.x && x < selection.x + selection.width && y >= selection.y && y < selection.y + selection.height;
        const i = (y * W + x) * 4;
        expect(after[i]).toBe(inside ? 255 - before[i]! : before[i]);
      }
    }
    await edit({ op: "selection:clear" });
  });

  it("posterize maps each channel as the adjustment layer's record does (exact)", async () => {
    const out = (await filteredAdjust({ type: "posterize", levels: 4 })).subarray(0, 400);
    const n = 4;
    for (let i = 0; i < out.length; i++) if (i % 4 !== 3) expect(out[i]).toBe(Math.floor((Math.min(n - 1, Math.floor((picture[i]! * n) / 256)) * 255) / (n - 1)));
  });

  async function filteredAdjust(adjustment: Extract<EditOp, { op: "layer:adjust" }>["adjustment"]): Promise<Buffer> {
    const id = await pictureLayer();
    await edit({ op: "layer:adjust", layerId: id, adjustment });
    return pixelsOf(id);
  }
});
