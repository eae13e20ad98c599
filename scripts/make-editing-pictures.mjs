#!/usr/bin/env node
// The before/after pictures of docs/editing.md, drawn by the embedded editor: one picture per family of edits, each
// a row of panels (the untouched document first), every panel an export of a copy of one document with the edits its
// caption names. Deterministic: the scene comes from scripts/generate-product-shots.js.
//
//   npm run build && node scripts/make-editing-pictures.mjs [out-dir (default docs)]
//
// writes edit-adjustments.png, edit-content-layers.png and edit-effects.png.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import sharp from "sharp";
import { createEmbeddedHost } from "../dist/index.js";
import { resolveAdjustment, resolveFilter } from "../dist/methods/_internal/adjustments.js";
import { resolveFill } from "../dist/methods/_internal/content-layers.js";
import { resolveEffects } from "../dist/methods/_internal/effects.js";
import { renderScene } from "./generate-product-shots.js";

const OUT = process.argv[2] ?? "docs";
await mkdir(OUT, { recursive: true });
const WIDTH = 280;
const HEIGHT = 210;
const GAP = 8;
const CAPTION_HEIGHT = 34;
const ctx = { signal: new AbortController().signal, caller: "pictures" };
/** What resolving a solid or gradient fill needs of a method's context: the editor's kind, for its errors. */
const methodCtx = { host: { kind: "embedded" } };

/** In an edit's `layerId`: the layer the panel's previous edit made. */
const MADE = Symbol("the layer just made");

const adjust = (a) => (layerId) => [{ op: "layer:adjust", layerId, adjustment: resolveAdjustment(a) }];
const filter = (f) => (layerId) => [{ op: "filter:apply", layerId, filter: resolveFilter(f) }];
const adjustmentLayer = (a) => () => [{ op: "layer:create", kind: "adjustment", name: a.type, adjustment: resolveAdjustment(a), place: { to: "top" } }];
const fillLayer = (fill, then = []) => async () => [
  { op: "layer:create", kind: "fill", name: fill.type, fill: await resolveFill(methodCtx, fill), place: { to: "top" } },
  ...then,
];
const effects = (e) => (layerId) => {
  const resolved = resolveEffects(e, undefined);
  return [{ op: "layer:setEffects", layerId, effects: resolved.effects, globalLight: resolved.globalLight }];
};

const FAMILIES = [
  {
    file: "edit-adjustments.png",
    cutout: false,
    panels: [
      ["as opened", () => []],
      ["layer:adjust hueSaturation hue 150", adjust({ type: "hueSaturation", hue: 150, saturation: 10 })],
      ["layer:adjust curves", adjust({ type: "curves", rgb: [{ x: 0, y: 0 }, { x: 80, y: 20 }, { x: 170, y: 240 }, { x: 255, y: 255 }] })],
      ["filter:apply gaussianBlur 4", filter({ type: "gaussianBlur", radius: 4 })],
      ["filter:apply emboss", filter({ type: "emboss", depth: 4 })],
      ["filter:apply pixelate 12", filter({ type: "pixelate", size: 12 })],
    ],
  },
  {
    file: "edit-content-layers.png",
    cutout: false,
    panels: [
      ["as opened", () => []],
      ["adjustment layer: gradientMap", adjustmentLayer({ type: "gradientMap", stops: [{ location: 0, color: "#1b1f4a" }, { location: 100, color: "#ffd36b" }] })],
      ["adjustment layer: blackAndWhite", adjustmentLayer({ type: "blackAndWhite" })],
      [
        "fill layer: radial gradient, multiply",
        fillLayer({ type: "gradient", style: "radial", stops: [{ location: 0, color: "white" }, { location: 100, color: "#3a2a70" }] }, [
          { op: "layer:update", layerId: MADE, blendMode: "multiply" },
        ]),
      ],
    ],
  },
  {
    file: "edit-effects.png",
    cutout: true,
    panels: [
      ["no effects", () => []],
      ["dropShadow", effects({ dropShadow: { distance: 12, size: 14, opacity: 60 } })],
      ["stroke + outerGlow", effects({ stroke: { size: 4, color: "#1d3557" }, outerGlow: { size: 18, color: "#ffb703", opacity: 90, blendMode: "normal" } })],
      ["bevel + colorOverlay", effects({ bevel: { size: 10, depth: 150 }, colorOverlay: { color: "#e63946", opacity: 45 } })],
    ],
  },
];

async function png(rgba) {
  return sharp(rgba, { raw: { width: WIDTH, height: HEIGHT, channels: 4 } }).png().toBuffer();
}

/** The document every panel of a family copies: the photo, or (`cutout`) its subject alone over a plain backdrop. */
async function base(host, cutout) {
  const scene = renderScene("shoe-colour-gradient", { width: WIDTH, height: HEIGHT, seed: 3 });
  const doc = await host.createDocument(ctx, { width: WIDTH, height: HEIGHT, name: "picture", background: cutout ? [236, 236, 230, 255] : [255, 255, 255, 255] });
  const rgba = Buffer.from(scene.rgba);
  if (cutout) for (let i = 0; i < scene.mask.length; i++) rgba[i * 4 + 3] = scene.mask[i];
  const layerId = await host.importLayer(ctx, {
    documentId: doc.id,
    image: { bytes: await png(rgba), format: "png", width: WIDTH, height: HEIGHT },
    size: { width: WIDTH, height: HEIGHT },
    position: { x: 0, y: 0 },
    name: "Photo",
    aboveLayerId: null,
  });
  return { documentId: doc.id, layerId };
}

/** One panel: a copy of the document with the edits, exported, then closed. */
async function panel(host, { documentId, layerId }, edits) {
  const copy = (await host.edit(ctx, { documentId, edit: { op: "document:duplicate", name: "copy" } })).documentId;
  try {
    let made;
    for (const edit of await edits(layerId)) {
      const result = await host.edit(ctx, { documentId: copy, edit: edit.layerId === MADE ? { ...edit, layerId: made } : edit });
      made = result.layerId ?? made;
    }
    return (await host.exportDocumentImage(ctx, { documentId: copy, format: "png", size: { width: WIDTH, height: HEIGHT } })).bytes;
  } finally {
    await host.closeDocument(ctx, copy);
  }
}

async function caption(text) {
  const label = await sharp({ text: { text, font: "DejaVu Sans 10", rgba: true, dpi: 96 } }).png().toBuffer();
  const { width, height } = await sharp(label).metadata();
  return { input: label, width, height };
}

async function family(host, { file, cutout, panels }) {
  const doc = await base(host, cutout);
  const images = [];
  for (const [, edits] of panels) images.push(await panel(host, doc, edits));
  const width = panels.length * WIDTH + (panels.length + 1) * GAP;
  const height = HEIGHT + CAPTION_HEIGHT + GAP;
  const layers = [];
  for (const [i, [text]] of panels.entries()) {
    const left = GAP + i * (WIDTH + GAP);
    layers.push({ input: Buffer.from(images[i]), left, top: GAP });
    const label = await caption(text);
    layers.push({ input: label.input, left: left + Math.max(0, Math.round((WIDTH - label.width) / 2)), top: GAP + HEIGHT + Math.round((CAPTION_HEIGHT - label.height) / 2) });
  }
  await sharp({ create: { width, height, channels: 4, background: { r: 255, g: 255, b: 255, alpha: 1 } } })
    .composite(layers)
    .png({ palette: true, quality: 90, effort: 10 })
    .toFile(join(OUT, file));
  await host.closeDocument(ctx, doc.documentId);
  console.log(`wrote ${join(OUT, file)} (${width}×${height})`);
}

const host = createEmbeddedHost({ sample: false });
await host.connect();
try {
  for (const f of FAMILIES) await family(host, f);
} finally {
  await host.close();
}
