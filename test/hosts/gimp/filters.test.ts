import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGimpHost } from "../../../src/hosts/gimp/index.js";
import type { HostDocument, HostLayer } from "../../../src/protocol/index.js";
import { startSuiteBridge } from "../../helpers/bridge.js";
import type { TestClient } from "../../helpers/ws-client.js";
import { GIMP_BINARY, GIMP_SKIP, sharedGimpAttach } from "./_support.js";

/**
 * Each filter (and the adjustments GIMP makes through a procedure), on a real GIMP 2.10 and on the embedded
 * editor, from the same test picture with the same settings: the two layers compared pixel by pixel (mean |Δ| ≤ 2
 * levels, max ≤ 8), each difference reported. Noise is random: its spread is compared instead. The worker's shared
 * GIMP (its start is not the subject) and one embedded editor for the file; a 48×36 picture.
 */
const W = 48;
const H = 36;

function testPicture(): Buffer {
  const data = Buffer.alloc(W * H * 4);
  let seed = 11;
  const next = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 4;
      const square = x >= 16 && x < 30 && y >= 10 && y < 24;
      data[i] = square ? 230 : Math.round((x / (W - 1)) * 200 + next() * 30);
      data[i + 1] = square ? 40 : Math.round((y / (H - 1)) * 220);
      data[i + 2] = Math.round(60 + next() * 120);
      data[i + 3] = 255;
    }
  }
  return data;
}

/** A selection away from the picture's edges. */
const INSIDE = { x: 8, y: 6, width: 24, height: 18 };

interface Editor {
  client: TestClient;
  close(): Promise<void>;
}

describe.skipIf(GIMP_SKIP !== undefined)("filters: embedded against a real GIMP", () => {
  let gimp: Editor;
  let embedded: Editor;
  let png: string;
  const report: string[] = [];

  async function open(options: Parameters<typeof startSuiteBridge>[0]): Promise<Editor> {
    const harness = await startSuiteBridge(options);
    return { client: await harness.connect(), close: () => harness.close() };
  }

  beforeAll(async () => {
    [gimp, embedded] = await Promise.all([open({ host: createGimpHost({ binary: GIMP_BINARY, attach: await sharedGimpAttach(), sample: false }) }), open({})]);
    png = `data:image/png;base64,${(await sharp(testPicture(), { raw: { width: W, height: H, channels: 4 } }).png().toBuffer()).toString("base64")}`;
  }, 120_000);
  afterAll(async () => {
    console.log(`embedded vs GIMP (mean / max |Δ|, levels): ${report.join("; ")}`);
    await Promise.all([gimp?.close(), embedded?.close()]);
  });

  /** The picture on a fresh document of `editor`, the method applied, the layer's pixels read back. */
  async function run(editor: Editor, method: "filter:apply" | "layer:adjust", settings: Record<string, unknown>, selection?: typeof INSIDE): Promise<Buffer> {
    const doc = await editor.client.call<HostDocument>("document:create", { width: W, height: H, name: "Filters" });
    const layer = await editor.client.call<HostLayer>("layer:importImage", { documentId: doc.id, image: png, name: "Picture", position: { x: 0, y: 0 } });
    if (selection !== undefined) await editor.client.call("selection:set", { documentId: doc.id, rect: selection });
    await editor.client.call(method, { documentId: doc.id, layerId: layer.id, [method === "filter:apply" ? "filter" : "adjustment"]: settings });
    const { data: uri } = await editor.client.call<{ data: string }>("image:exportLayer", { documentId: doc.id, layerId: layer.id, format: "png" });
    const { data, info } = await sharp(Buffer.from(uri.slice(uri.indexOf(",") + 1), "base64")).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([W, H]);
    await editor.client.call("document:close", { documentId: doc.id, force: true }).catch(() => undefined);
    return data;
  }

  function compare(a: Buffer, b: Buffer): { mean: number; max: number } {
    let sum = 0;
    let max = 0;
    let n = 0;
    for (let i = 0; i < a.length; i++) {
      if (i % 4 === 3) continue;
      const d = Math.abs(a[i]! - b[i]!);
      sum += d;
      max = Math.max(max, d);
      n++;
    }
    return { mean: sum / n, max };
  }

  // [method, settings, mean bound, max bound]: every row is held to 2 / 8 (docs/editing.md says how each filter is mapped).
  it.each([
    ["filter:apply", { type: "gaussianBlur", radius: 2 }, 2, 8],
    ["filter:apply", { type: "gaussianBlur", radius: 5 }, 2, 8],
    ["filter:apply", { type: "motionBlur", angle: 30, distance: 9 }, 2, 8],
    ["filter:apply", { type: "unsharpMask", amount: 80, radius: 1.5, threshold: 0 }, 2, 8],
    ["filter:apply", { type: "sharpen" }, 2, 8],
    ["filter:apply", { type: "median", radius: 2 }, 2, 8],
    ["filter:apply", { type: "pixelate", size: 6 }, 2, 8],
    ["filter:apply", { type: "emboss", azimuth: 135, elevation: 45, depth: 3 }, 2, 8],
    ["filter:apply", { type: "emboss", azimuth: 30, elevation: 60, depth: 16 }, 2, 8],
    ["layer:adjust", { type: "levels", rgb: { inputBlack: 20, inputWhite: 230, gamma: 1.3 } }, 2, 8],
    ["layer:adjust", { type: "curves", rgb: [{ input: 0, output: 0 }, { input: 100, output: 140 }, { input: 255, output: 255 }] }, 2, 8],
    ["layer:adjust", { type: "exposure", exposure: 0.7, gamma: 1.1 }, 2, 8],
    ["layer:adjust", { type: "brightnessContrast", brightness: 30, contrast: 20 }, 2, 8],
    ["layer:adjust", { type: "invert" }, 2, 8],
    ["layer:adjust", { type: "posterize", levels: 5 }, 2, 8],
    ["layer:adjust", { type: "threshold", level: 120 }, 2, 8],
    ["layer:adjust", { type: "channelMixer", red: { red: 80, green: 20, blue: 0 } }, 2, 8],
  ] as const)("%s %j", async (method, settings, meanBound, maxBound) => {
    const [a, b] = await Promise.all([run(gimp, method, settings), run(embedded, method, settings)]);
    const d = compare(a, b);
    report.push(`${settings.type}${"radius" in settings ? ` ${settings.radius}` : ""}${"depth" in settings ? ` depth ${settings.depth}` : ""}: ${d.mean.toFixed(2)} / ${d.max}`);
    expect(d.mean).toBeLessThanOrEqual(meanBound);
    expect(d.max).toBeLessThanOrEqual(maxBound);
  });

  // The filters GIMP runs on a grown copy of the layer are pasted back within the selection, nothing outside it.
  it.each([
    { type: "median", radius: 2 },
    { type: "motionBlur", angle: 30, distance: 9 },
    { type: "emboss", azimuth: 135, elevation: 45, depth: 3 },
  ])("filter:apply %j inside a selection", async (settings) => {
    const [a, b] = await Promise.all([run(gimp, "filter:apply", settings, INSIDE), run(embedded, "filter:apply", settings, INSIDE)]);
    const d = compare(a, b);
    report.push(`${settings.type} in a selection: ${d.mean.toFixed(2)} / ${d.max}`);
    expect(d.mean).toBeLessThanOrEqual(2);
    expect(d.max).toBeLessThanOrEqual(8);
    const source = testPicture();
    let outsideChanged = 0;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const inside = x >= INSIDE.x && x < INSIDE.x + INSIDE.width && y >= INSIDE.y && y < INSIDE.y + INSIDE.height;
        for (let c = 0; c < 4 && !inside; c++) if (a[(y * W + x) * 4 + c] !== source[(y * W + x) * 4 + c]) outsideChanged++;
      }
    }
    expect(outsideChanged).toBe(0);
  });
});
