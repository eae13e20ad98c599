#!/usr/bin/env node
// Writes the product-card template and one product photo per row of products.csv into a folder:
//
//   node examples/recipes/product-card/make-template.mjs <folder>
//
// <folder>/card.psd (360×640): a headline and a price (live text layers), a photo placeholder that is a smart object
// (scaled 110 % and turned −6°), a red "Sale" badge named Badge, and two layer comps: "square" (the card in the top
// 360×360 on its own backdrop, the rest of the canvas left transparent) and "story" (the whole 360×640, the headline
// and price moved below the photo, the badge beside them). <folder>/photos/<id>.png: a synthetic product shot per
// row (drawn here with sharp, nothing downloaded). A designer would make the same file in Photoshop; this script
// only stands in for one so the recipe runs anywhere.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { initializeCanvas, writePsdBuffer } from "ag-psd";
import sharp from "sharp";

export const WIDTH = 360;
export const HEIGHT = 640;
/** The square comp's card: the top of the canvas. */
export const SQUARE = 360;
/** The placeholder's embedded picture, and how the smart object places it. */
const PHOTO = { width: 240, height: 180, scale: 1.1, degrees: -6, centre: { x: 180, y: 178 } };
const COMP_SQUARE = 1;
const COMP_STORY = 2;
const PHOTO_LINK = "3b1f6a52-8c0e-4d27-9f41-6a2d7e5c0b18";

/** Solid pixels for a layer (ag-psd's imageData). */
function pixels(width, height, [r, g, b, a]) {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set([r, g, b, a], i);
  return { width, height, data };
}

/** The corners (top-left, top-right, bottom-right, bottom-left) of the placeholder's frame on the canvas. */
function frameCorners({ width, height, scale, degrees, centre }) {
  const r = (degrees * Math.PI) / 180;
  return [
    [-width / 2, -height / 2],
    [width / 2, -height / 2],
    [width / 2, height / 2],
    [-width / 2, height / 2],
  ].flatMap(([x, y]) => [centre.x + scale * (x * Math.cos(r) - y * Math.sin(r)), centre.y + scale * (x * Math.sin(r) + y * Math.cos(r))]);
}

/** Where a layer is in each comp: shown or not, and moved by how much from where the file has it. */
function comps(square, story) {
  return { settings: [{ compList: [COMP_SQUARE], ...square }, { compList: [COMP_STORY], ...story }] };
}

/** A text layer whose text record the editor re-renders (`layer:updateText` keeps its font, size and colour). */
function textLayer(name, id, text, x, baseline, fontSize, colour, settings) {
  const style = { font: { name: "DejaVuSans" }, fontSize, fillColor: colour };
  const top = baseline - fontSize;
  return {
    name,
    id,
    left: x,
    top,
    imageData: pixels(10, fontSize, [0, 0, 0, 0]),
    text: { text, transform: [1, 0, 0, 1, x, baseline], style },
    comps: settings,
  };
}

/** The "Sale" badge's pixels: a red tag with its word (a pixel layer; rows show or hide it). */
async function badge() {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="90" height="44"><rect width="90" height="44" rx="10" fill="#dc1428"/>` +
    `<text x="45" y="30" font-family="DejaVu Sans, sans-serif" font-size="20" font-weight="bold" fill="#fff" text-anchor="middle">SALE</text></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8ClampedArray(data) };
}

/** The template's bytes. */
export async function templatePsd() {
  initializeCanvas(
    (width, height) => ({ width, height }),
    (width, height) => ({ width, height, data: new Uint8ClampedArray(width * height * 4) }),
  );
  const corners = frameCorners(PHOTO);
  const xs = corners.filter((_, i) => i % 2 === 0);
  const ys = corners.filter((_, i) => i % 2 === 1);
  const left = Math.floor(Math.min(...xs));
  const top = Math.floor(Math.min(...ys));
  const placeholder = await sharp({ create: { width: PHOTO.width, height: PHOTO.height, channels: 4, background: "#b0b0b0" } }).png().toBuffer();
  const children = [
    { name: "Story backdrop", id: 1, left: 0, top: 0, imageData: pixels(WIDTH, HEIGHT, [244, 239, 230, 255]), comps: comps({ enabled: false }, { enabled: true }) },
    { name: "Square backdrop", id: 2, left: 0, top: 0, imageData: pixels(SQUARE, SQUARE, [255, 255, 255, 255]), comps: comps({ enabled: true }, { enabled: false }) },
    {
      name: "Photo",
      id: 3,
      left,
      top,
      // What Photoshop would show until the editor draws the embedded file through the frame.
      imageData: pixels(Math.ceil(Math.max(...xs)) - left, Math.ceil(Math.max(...ys)) - top, [176, 176, 176, 255]),
      placedLayer: { id: PHOTO_LINK, placed: PHOTO_LINK, type: "raster", transform: corners, width: PHOTO.width, height: PHOTO.height },
    },
    textLayer("Headline", 4, "Product name", 20, 44, 26, { r: 20, g: 20, b: 20 }, comps({ offset: { x: 0, y: 0 } }, { offset: { x: 0, y: 356 } })),
    textLayer("Price", 5, "0.00", 20, 336, 24, { r: 200, g: 30, b: 30 }, comps({ offset: { x: 0, y: 0 } }, { offset: { x: 0, y: 140 } })),
    { name: "Badge", id: 6, left: 250, top: 300, imageData: await badge(), comps: comps({ offset: { x: 0, y: 0 } }, { offset: { x: 0, y: 150 } }) },
  ];
  return writePsdBuffer({
    width: WIDTH,
    height: HEIGHT,
    imageData: pixels(WIDTH, HEIGHT, [255, 255, 255, 255]),
    children,
    linkedFiles: [{ id: PHOTO_LINK, name: "Photo.png", type: "png ", data: new Uint8Array(placeholder) }],
    imageResources: {
      layerComps: {
        list: [
          { id: COMP_SQUARE, name: "square", capturedInfo: 3 },
          { id: COMP_STORY, name: "story", capturedInfo: 3 },
        ],
        lastApplied: COMP_SQUARE,
      },
    },
  });
}

/** A synthetic product shot: a soft backdrop and a rounded product of its own hue, different for each `n`. */
export function productPhoto(n) {
  const hue = (n * 67) % 360;
  const shape =
    n % 3 === 0
      ? `<circle cx="120" cy="95" r="62" fill="hsl(${hue},70%,50%)"/>`
      : n % 3 === 1
        ? `<rect x="62" y="36" width="116" height="118" rx="22" fill="hsl(${hue},65%,45%)"/>`
        : `<path d="M120 28 L190 158 L50 158 Z" fill="hsl(${hue},60%,48%)"/>`;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="180">` +
    `<defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="hsl(${hue},30%,92%)"/><stop offset="1" stop-color="hsl(${hue},25%,75%)"/></linearGradient></defs>` +
    `<rect width="240" height="180" fill="url(#g)"/><ellipse cx="120" cy="162" rx="70" ry="9" fill="rgba(0,0,0,0.2)"/>${shape}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** The ids of products.csv's rows (the first column; ids hold no commas or quotes). */
export async function productIds(csv = new URL("./products.csv", import.meta.url)) {
  const [, ...rows] = (await readFile(csv, "utf8")).split(/\r?\n/).filter((line) => line.trim() !== "");
  return rows.map((line) => line.slice(0, line.indexOf(",")));
}

/** Writes card.psd and photos/<id>.png for every row into `folder`. */
export async function makeTemplate(folder) {
  await mkdir(join(folder, "photos"), { recursive: true });
  await writeFile(join(folder, "card.psd"), await templatePsd());
  const ids = await productIds();
  await Promise.all(ids.map(async (id, n) => writeFile(join(folder, "photos", `${id}.png`), await productPhoto(n))));
  return ids;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [folder] = process.argv.slice(2);
  if (folder === undefined) {
    console.error("usage: make-template.mjs <folder>");
    process.exit(2);
  }
  const ids = await makeTemplate(resolve(folder));
  console.log(`${join(resolve(folder), "card.psd")} and ${ids.length} photos in ${join(resolve(folder), "photos")}`);
}
