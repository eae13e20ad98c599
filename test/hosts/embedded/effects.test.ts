import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Layer, type LayerEffectsInfo, writePsdBuffer } from "ag-psd";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostAdapter, HostCallContext } from "../../../src/hosts/host.js";
import { BridgeError } from "../../../src/protocol/index.js";
import { diffFromStored, isClose } from "./composite-diff.js";
import { connectedHost, ctx, exportDocument } from "./helpers.js";

const FIXTURES = fileURLToPath(new URL("../../fixtures/psd/", import.meta.url));

/**
 * Real Photoshop files with layer effects and the most their export may differ from the composite Photoshop
 * stored in them (RMSE 0–255, share of pixels off by more than 5): a ratchet, lower these when rendering improves.
 * What keeps a file from being close is named beside it.
 */
const RATCHET: ReadonlyArray<{ file: string; rmse: number; share: number; why?: string }> = [
  { file: "psd-tools/effects/double-stroke-effects.psd", rmse: 0.05, share: 0.001 },
  { file: "psd-tools/effects/stroke-effect-transparent-shape.psd", rmse: 0.05, share: 0.001 },
  { file: "psd-tools/transparency/fill-opacity.psd", rmse: 0.2, share: 0.001 },
  { file: "psd-tools/effects/shape-fx.psd", rmse: 0.05, share: 0.001 },
  { file: "psd-tools/masks.psd", rmse: 1.6, share: 0.006 },
  { file: "psd-tools/effects/stroke-composite.psd", rmse: 1.5, share: 0.002 },
  { file: "psd-tools/effects/shape-fx2.psd", rmse: 4.3, share: 0.021, why: "the inside stroke's inner edge lands a fraction of a pixel off along slanted sides" },
  { file: "psd-tools/layer_params.psd", rmse: 4.9, share: 0.051, why: "the pillow emboss is approximated" },
  { file: "psd-tools/layer_effects.psd", rmse: 4.1, share: 0.068, why: "the emboss is approximated; one layer blends only its red and green channels; its text edges follow no model of their cached alpha" },
  { file: "psd-tools/layer_comps.psd", rmse: 9.2, share: 0.447, why: "a 100 px inner bevel with gloss is approximated" },
  { file: "psd-tools/effect-stroke-gradient.psd", rmse: 38.5, share: 0.226, why: "a noise gradient stroke is drawn as a plain ramp" },
  { file: "psd-tools/fill_adjustments.psd", rmse: 15, share: 1, why: "a chain of twelve adjustments, brightness/contrast and photo filter among them, drifts a few levels" },
  { file: "psd-tools/effects/stroke-effects.psd", rmse: 6.9, share: 0.017, why: "strokes on paths with holes land a fraction of a pixel off" },
];

describe("layer effects of real Photoshop files", () => {
  let host: HostAdapter;
  beforeAll(async () => {
    host = await connectedHost({ sample: false });
  });
  afterAll(async () => {
    await host?.close();
  });

  for (const { file, rmse, share, why } of RATCHET) {
    it(`${file} renders no further from Photoshop's composite than RMSE ${rmse} and ${share * 100} % of pixels${why ? ` (${why})` : ""}`, async () => {
      const path = join(FIXTURES, file);
      const doc = await host.openDocument!(ctx(), path);
      const diff = await diffFromStored((await exportDocument(host, { documentId: doc.id })).bytes, path);
      expect(diff.rmse).toBeLessThanOrEqual(rmse);
      expect(diff.share).toBeLessThanOrEqual(share);
      if (why === undefined) expect(isClose(diff)).toBe(true);
      await host.closeDocument!(ctx(), doc.id);
    });
  }
});

function solid(width: number, height: number, rgba: [number, number, number, number]): { width: number; height: number; data: Uint8ClampedArray } {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
  return { width, height, data };
}

const BLACK = { r: 0, g: 0, b: 0 };
const BLUE = { r: 0, g: 0, b: 255 };
const GREEN = { r: 0, g: 255, b: 0 };
const px = (value: number) => ({ value, units: "Pixels" as const });

/** 60×60: white background, a red 10×10 square at (20, 20) with `effects` (and `extra` fields), over it nothing. */
function squarePsd(effects: LayerEffectsInfo | undefined, extra: Partial<Layer> = {}): Buffer {
  const children: Layer[] = [
    { name: "Background", imageData: solid(60, 60, [255, 255, 255, 255]) },
    { name: "Square", left: 20, top: 20, imageData: solid(10, 10, [255, 0, 0, 255]), ...(effects ? { effects } : {}), ...extra },
  ];
  return writePsdBuffer({ width: 60, height: 60, children });
}

describe("layer effects drawn from their parameters", () => {
  let host: HostAdapter;
  let dir: string;
  beforeAll(async () => {
    host = await connectedHost({ sample: false });
    dir = await mkdtemp(join(tmpdir(), "bridge-effects-"));
  });
  afterAll(async () => {
    await host?.close();
    await rm(dir, { recursive: true, force: true });
  });

  let count = 0;
  /** The document's composite as RGBA rows, read through `at(x, y)`. */
  const render = async (bytes: Buffer): Promise<(x: number, y: number) => number[]> => {
    const path = join(dir, `square-${count++}.psd`);
    await writeFile(path, bytes);
    const doc = await host.openDocument!(ctx(), path);
    const { data, info } = await sharp((await exportDocument(host, { documentId: doc.id })).bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    await host.closeDocument!(ctx(), doc.id);
    return (x, y) => [...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 3)];
  };

  it("a drop shadow lands at the distance away from the light, and the layer covers it", async () => {
    const shadow = { enabled: true, color: BLACK, opacity: 1, blendMode: "normal" as const, size: px(0), distance: px(5), useGlobalLight: false };
    const fromTop = await render(squarePsd({ dropShadow: [{ ...shadow, angle: 90 }] }));
    expect(fromTop(25, 32)).toEqual([0, 0, 0]); // below the square
    expect(fromTop(25, 27)).toEqual([255, 0, 0]); // the square itself stays on top
    expect(fromTop(25, 18)).toEqual([255, 255, 255]);
    expect(fromTop(25, 35)).toEqual([255, 255, 255]); // 5 px down, no further
    const fromRight = await render(squarePsd({ dropShadow: [{ ...shadow, angle: 0 }] }));
    expect(fromRight(17, 25)).toEqual([0, 0, 0]);
    expect(fromRight(32, 25)).toEqual([255, 255, 255]);
  });

  it("a drop shadow's size blurs it: it fades with the distance from the shape", async () => {
    const at = await render(squarePsd({ dropShadow: [{ enabled: true, color: BLACK, opacity: 1, blendMode: "normal", size: px(8), distance: px(0) }] }));
    const near = at(31, 25)[0]!;
    const far = at(35, 25)[0]!;
    expect(near).toBeLessThan(far);
    expect(far).toBeLessThan(255);
    expect(at(40, 25)).toEqual([255, 255, 255]);
  });

  it("a stroke is as wide as its size outside, inside or centred on the edge", async () => {
    const stroke = { enabled: true, color: BLUE, opacity: 1, blendMode: "normal" as const, fillType: "color" as const, size: px(3) };
    const outside = await render(squarePsd({ stroke: [{ ...stroke, position: "outside" }] }));
    expect([17, 18, 19].map((x) => outside(x, 25))).toEqual([[0, 0, 255], [0, 0, 255], [0, 0, 255]]);
    expect(outside(16, 25)).toEqual([255, 255, 255]);
    expect(outside(20, 25)).toEqual([255, 0, 0]);
    const inside = await render(squarePsd({ stroke: [{ ...stroke, position: "inside" }] }));
    expect([20, 21, 22].map((x) => inside(x, 25))).toEqual([[0, 0, 255], [0, 0, 255], [0, 0, 255]]);
    expect(inside(19, 25)).toEqual([255, 255, 255]);
    expect(inside(23, 25)).toEqual([255, 0, 0]);
    const centre = await render(squarePsd({ stroke: [{ ...stroke, size: px(4), position: "center" }] }));
    expect([18, 19, 20, 21].map((x) => centre(x, 25))).toEqual([[0, 0, 255], [0, 0, 255], [0, 0, 255], [0, 0, 255]]);
    expect(centre(17, 25)).toEqual([255, 255, 255]);
    expect(centre(22, 25)).toEqual([255, 0, 0]);
  });

  it("a disabled effect, or a style switched off as a whole, draws nothing", async () => {
    const plain = await render(squarePsd(undefined));
    const overlay = { enabled: false, color: GREEN, opacity: 1, blendMode: "normal" as const };
    const disabled = await render(squarePsd({ solidFill: [overlay], stroke: [{ enabled: false, color: BLUE, size: px(3), position: "outside" }] }));
    const styleOff = await render(squarePsd({ disabled: true, solidFill: [{ ...overlay, enabled: true }] }));
    for (const [x, y] of [[25, 25], [18, 25], [10, 10]] as const) {
      expect(disabled(x, y)).toEqual(plain(x, y));
      expect(styleOff(x, y)).toEqual(plain(x, y));
    }
  });

  it("fill opacity 0 hides the pixels but keeps the effects: an overlay still covers, an outside stroke stays hollow", async () => {
    const overlay = await render(squarePsd({ solidFill: [{ enabled: true, color: GREEN, opacity: 1, blendMode: "normal" }] }, { fillOpacity: 0 }));
    expect(overlay(25, 25)).toEqual([0, 255, 0]);
    const hollow = await render(squarePsd({ stroke: [{ enabled: true, color: BLUE, opacity: 1, fillType: "color", size: px(2), position: "outside" }] }, { fillOpacity: 0 }));
    expect(hollow(25, 25)).toEqual([255, 255, 255]);
    expect(hollow(19, 25)).toEqual([0, 0, 255]);
  });

  it("layer opacity fades the effects with the pixels; an overlay's own mode and opacity apply", async () => {
    const half = await render(squarePsd({ solidFill: [{ enabled: true, color: BLUE, opacity: 1, blendMode: "normal" }] }, { opacity: 0.5 }));
    expect(half(25, 25).map((v, i) => Math.abs(v - [127, 127, 255][i]!) <= 1)).toEqual([true, true, true]);
    const multiply = await render(squarePsd({ solidFill: [{ enabled: true, color: { r: 128, g: 255, b: 255 }, opacity: 1, blendMode: "multiply" }] }));
    expect(multiply(25, 25).map((v, i) => Math.abs(v - [128, 0, 0][i]!) <= 1)).toEqual([true, true, true]);
  });

  it("a gradient overlay runs across the layer along its angle", async () => {
    const gradient = {
      type: "solid" as const,
      name: "black, white",
      colorStops: [
        { color: BLACK, location: 0, midpoint: 0.5 },
        { color: { r: 255, g: 255, b: 255 }, location: 1, midpoint: 0.5 },
      ],
      opacityStops: [
        { opacity: 1, location: 0, midpoint: 0.5 },
        { opacity: 1, location: 1, midpoint: 0.5 },
      ],
    };
    const at = await render(squarePsd({ gradientOverlay: [{ enabled: true, opacity: 1, blendMode: "normal", type: "linear", angle: 0, scale: 1, align: true, gradient }] }));
    const row = [20, 22, 24, 27, 29].map((x) => at(x, 25)[0]!);
    expect(row).toEqual([...row].sort((a, b) => a - b));
    expect(row[0]!).toBeLessThan(40);
    expect(row[4]!).toBeGreaterThan(215);
    // The layer's own red is replaced: the overlay is grey.
    expect(at(25, 25)[0]).toBe(at(25, 25)[2]);
  });

  it("an inner shadow darkens only inside the shape, an outer glow lights only outside it", async () => {
    const inner = await render(squarePsd({ innerShadow: [{ enabled: true, color: BLACK, opacity: 1, blendMode: "normal", size: px(0), distance: px(3), angle: 90, useGlobalLight: false }] }));
    expect(inner(25, 21)).toEqual([0, 0, 0]); // the top rows, in the shape's own shadow
    expect(inner(25, 27)).toEqual([255, 0, 0]);
    expect(inner(25, 18)).toEqual([255, 255, 255]);
    const glow = await render(squarePsd({ outerGlow: { enabled: true, color: BLUE, opacity: 1, blendMode: "normal", size: px(4), range: 1 } }));
    expect(glow(25, 25)).toEqual([255, 0, 0]);
    const edge = glow(18, 25);
    expect(edge[2]).toBe(255);
    expect(edge[0]).toBeLessThan(255);
    expect(glow(10, 25)).toEqual([255, 255, 255]);
  });

  it("an export reserves the memory its effects work in: refused when the budget holds the canvas but not them", async () => {
    const tight = await connectedHost({ sample: false, memoryBudgetBytes: 200_000 });
    try {
      const open = async (name: string, bytes: Buffer): Promise<number> => {
        await writeFile(join(dir, name), bytes);
        return (await tight.openDocument!(ctx(), join(dir, name))).id;
      };
      const plain = await open("budget-plain.psd", squarePsd(undefined));
      await exportDocument(tight, { documentId: plain });
      await tight.closeDocument!(ctx(), plain);
      const shadow = await open("budget-shadow.psd", squarePsd({ dropShadow: [{ enabled: true, color: BLACK, opacity: 1, size: px(20), distance: px(0) }] }));
      await expect(exportDocument(tight, { documentId: shadow })).rejects.toMatchObject({
        code: "PAYLOAD_TOO_LARGE",
        details: { limit: "editorMemoryBudgetBytes" },
      });
    } finally {
      await tight.close();
    }
  });

  it("a cancelled export with effects stops mid-compositing with the cancellation's reason", async () => {
    // Only a styled layer: every compositing row is the effects' (a 400 px square with a wide soft shadow).
    const path = join(dir, "cancel.psd");
    const layer: Layer = {
      name: "Card",
      left: 50,
      top: 50,
      imageData: solid(400, 400, [200, 0, 0, 255]),
      effects: { dropShadow: [{ enabled: true, color: BLACK, opacity: 1, size: px(120), distance: px(10) }], outerGlow: { enabled: true, color: BLUE, size: px(60) } },
    };
    await writeFile(path, writePsdBuffer({ width: 500, height: 500, children: [layer] }));
    const doc = await host.openDocument!(ctx(), path);
    const reason = new BridgeError("CANCELLED", "Cancelled by the client");
    let stage: string | undefined;
    let compositingCheckpoints = 0;
    const done: number[] = [];
    const cancelling: HostCallContext = {
      signal: new AbortController().signal,
      caller: "test",
      progress: (value, _total, message) => {
        stage = message;
        if (message === "compositing") done.push(value);
      },
      checkpoint: () => {
        if (stage === "compositing" && ++compositingCheckpoints > 2) throw reason;
      },
    };
    await expect(host.exportDocumentImage(cancelling, { documentId: doc.id, format: "png", size: { width: 500, height: 500 } })).rejects.toBe(reason);
    // Stopped within its first bands of rows, long before the 400 rows of the layer itself.
    expect(Math.max(...done)).toBeLessThan(400);
    await host.closeDocument!(ctx(), doc.id);
  });

  it("an export with effects reports every compositing row it announced before encoding starts", async () => {
    const path = join(dir, "progress.psd");
    await writeFile(path, squarePsd({ dropShadow: [{ enabled: true, color: BLACK, opacity: 1, size: px(6), distance: px(3) }], stroke: [{ enabled: true, color: BLUE, size: px(2) }] }));
    const doc = await host.openDocument!(ctx(), path);
    const reports: Array<[number, number | undefined, string | undefined]> = [];
    const progress = (done: number, total?: number, message?: string): void => {
      reports.push([done, total, message]);
    };
    await host.exportDocumentImage({ ...ctx(), progress }, { documentId: doc.id, format: "png", size: { width: 60, height: 60 } });
    const compositing = reports.filter(([, , message]) => message === "compositing").map(([done]) => done);
    const encodingStart = reports.find(([, , message]) => message === "encoding")![0];
    // The effects' rows are part of the announced total: the last compositing report reaches the encoding stage.
    expect(compositing.length).toBeGreaterThan(2);
    expect(Math.max(...compositing)).toBe(encodingStart);
    await host.closeDocument!(ctx(), doc.id);
  });
});
