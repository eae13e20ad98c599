import sharp from "sharp";
import type { DocumentContent } from "./document.js";
import { ContentBuilder } from "./document.js";
import type { Raster } from "./raster.js";
import { solidRaster } from "./raster.js";

/** Size of the sample document. */
export const SAMPLE_WIDTH = 800;
export const SAMPLE_HEIGHT = 600;
/** Name of the sample document. */
export const SAMPLE_NAME = "Sample";

const LABEL_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="220" height="40">
  <rect x="0" y="0" width="220" height="40" rx="8" fill="#2563eb"/>
</svg>`;

const SUBJECT_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="240">
  <defs><radialGradient id="g" cx="40%" cy="35%" r="70%">
    <stop offset="0" stop-color="#ffb347"/><stop offset="1" stop-color="#e53935"/>
  </radialGradient></defs>
  <circle cx="120" cy="120" r="110" fill="url(#g)"/>
</svg>`;

const SHADOW_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="90">
  <defs><radialGradient id="s" cx="50%" cy="50%" r="50%">
    <stop offset="0" stop-color="#000" stop-opacity="0.9"/><stop offset="1" stop-color="#000" stop-opacity="0"/>
  </radialGradient></defs>
  <ellipse cx="160" cy="45" rx="160" ry="45" fill="url(#s)"/>
</svg>`;

async function rasterize(svg: string): Promise<Raster> {
  const { data, info } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

/**
 * The generated sample document: top to bottom `Label`, group `Product` (`Subject`, `Shadow` at 60 %),
 * `Background` (light grey). `Subject` is active; there is no selection.
 */
export async function buildSampleContent(): Promise<DocumentContent> {
  const [label, subject, shadow] = await Promise.all([rasterize(LABEL_SVG), rasterize(SUBJECT_SVG), rasterize(SHADOW_SVG)]);
  const b = new ContentBuilder(SAMPLE_WIDTH, SAMPLE_HEIGHT);
  const background = b.pixel("Background", solidRaster(SAMPLE_WIDTH, SAMPLE_HEIGHT, [238, 238, 238, 255]), { kind: "background" });
  const shadowLayer = b.pixel("Shadow", shadow, { left: 240, top: 400, opacity: 153 });
  const subjectLayer = b.pixel("Subject", subject, { left: 280, top: 170 });
  const product = b.group("Product", [subjectLayer, shadowLayer]);
  const labelLayer = b.pixel("Label", label, { left: 40, top: 40 });
  return b.build([labelLayer, product, background], [subjectLayer.id]);
}
