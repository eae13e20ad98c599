import sharp from "sharp";
import { firstValueFrom } from "rxjs";
import type { Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import type { HostRect } from "../../../src/protocol/index.js";
import { loopArea, simplifyLoop, traceContours } from "../../../src/hosts/embedded/trace/index.js";
import { connectedHost, ctx } from "./helpers.js";

/** A w×h mask with the pixels where `inside(x, y)` holds set to 255. */
function maskOf(w: number, h: number, inside: (x: number, y: number) => boolean): { width: number; height: number; data: Uint8Array } {
  const data = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (inside(x, y)) data[y * w + x] = 255;
  return { width: w, height: h, data };
}

/** Renders SVG path data (evenodd) into a w×h 0/255 mask with sharp. */
async function renderPath(d: string, w: number, h: number): Promise<Uint8Array> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><path d="${d}" fill="#fff" fill-rule="evenodd" shape-rendering="crispEdges"/></svg>`;
  const { data } = await sharp(Buffer.from(svg)).flatten({ background: "#000" }).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  return new Uint8Array(data);
}

function iou(a: Uint8Array, b: Uint8Array): number {
  let inter = 0;
  let union = 0;
  for (let i = 0; i < a.length; i++) {
    const x = (a[i] ?? 0) >= 128;
    const y = (b[i] ?? 0) >= 128;
    if (x && y) inter++;
    if (x || y) union++;
  }
  return inter / union;
}

describe("embedded host: selection masks and their outlines", () => {
  it("a rectangle traces to its four corners, clockwise", () => {
    const loops = traceContours(maskOf(10, 8, (x, y) => x >= 2 && x < 7 && y >= 1 && y < 5));
    expect(loops).toEqual([[2, 1, 7, 1, 7, 5, 2, 5]]);
    expect(loopArea(loops[0]!)).toBe(20);
  });

  it("a hole is its own outline with the opposite winding; diagonal neighbours are separate outlines", () => {
    const ring = traceContours(maskOf(9, 9, (x, y) => x >= 1 && x < 8 && y >= 1 && y < 8 && !(x >= 3 && x < 6 && y >= 3 && y < 6)));
    expect(ring.map(loopArea).sort((a, b) => a - b)).toEqual([-9, 49]);
    const diagonal = traceContours(maskOf(4, 4, (x, y) => (x === 1 && y === 1) || (x === 2 && y === 2)));
    expect(diagonal.map(loopArea)).toEqual([1, 1]);
  });

  it("a traced and simplified disc re-renders almost exactly, with few vertices", async () => {
    const disc = maskOf(200, 160, (x, y) => (x + 0.5 - 100) ** 2 + (y + 0.5 - 80) ** 2 <= 60 ** 2);
    const loops = traceContours(disc).map((l) => simplifyLoop(l, 0.8));
    expect(loops).toHaveLength(1);
    expect(loops[0]!.length / 2).toBeLessThan(120);
    const d = loops.map((l) => `M${l.join(" ")}Z`).join("");
    expect(iou(await renderPath(d, 200, 160), disc.data)).toBeGreaterThan(0.99);
  });

  it("setSelection shapes: a rect stays exact, an ellipse and a polygon report their mask's bbox", async () => {
    const host = await connectedHost();
    const set = (shape: Parameters<NonNullable<typeof host.setSelection>>[1]["shape"]) => host.setSelection!(ctx(), { documentId: 1, shape });
    const changed = firstValueFrom(host.events("selection:changed")! as Observable<HostRect | null>);
    expect(await set({ kind: "rect", rect: { x: 10, y: 20, width: 31, height: 40 } })).toEqual({ x: 10, y: 20, width: 31, height: 40 });
    expect(await changed).toEqual({ x: 10, y: 20, width: 31, height: 40 });
    expect(await set({ kind: "ellipse", rect: { x: 100, y: 100, width: 50, height: 30 } })).toEqual({ x: 100, y: 100, width: 50, height: 30 });
    const triangle = await set({ kind: "polygon", points: [{ x: 10, y: 10 }, { x: 110, y: 10 }, { x: 10, y: 60 }] });
    // Pixel centres decide: the last column whose centre is inside the slanted edge is x = 108.
    expect(triangle).toEqual({ x: 10, y: 10, width: 99, height: 50 });
    expect(await host.getSelection(ctx(), undefined)).toEqual(triangle);
    expect(await set({ kind: "ellipse", rect: { x: -500, y: -500, width: 10, height: 10 } })).toBeNull();
    await expect(set({ kind: "polygon", points: [{ x: 0, y: 0 }, { x: Number.NaN, y: 1 }, { x: 3, y: 3 }] })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
  });

  it("the outline of a rectangle is its exact path data and box; expand grows it; no selection is null", async () => {
    const host = await connectedHost();
    expect(await host.getSelectionOutline!(ctx(), { documentId: undefined, expand: 0 })).toBeNull();
    await host.setSelection!(ctx(), { documentId: 1, shape: { kind: "rect", rect: { x: 10, y: 20, width: 30, height: 40 } } });
    expect(await host.getSelectionOutline!(ctx(), { documentId: undefined, expand: 0 })).toEqual({
      d: "M10 20L40 20L40 60L10 60Z",
      box: { x: 10, y: 20, width: 30, height: 40 },
    });
    expect((await host.getSelectionOutline!(ctx(), { documentId: 1, expand: 5 }))?.box).toEqual({ x: 5, y: 15, width: 40, height: 50 });
  });

  it("the outline of an ellipse re-renders to the selected pixels", async () => {
    const host = await connectedHost();
    await host.setSelection!(ctx(), { documentId: 1, shape: { kind: "ellipse", rect: { x: 200, y: 150, width: 300, height: 200 } } });
    const outline = (await host.getSelectionOutline!(ctx(), { documentId: 1, expand: 0 }))!;
    const rendered = await renderPath(outline.d, 800, 600);
    const expected = maskOf(800, 600, (x, y) => ((x + 0.5 - 350) / 150) ** 2 + ((y + 0.5 - 250) / 100) ** 2 <= 1);
    expect(iou(rendered, expected.data)).toBeGreaterThan(0.99);
  });
});
