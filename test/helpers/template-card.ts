/**
 * The product card `template:render` is tested with, made with ag-psd, and the same edits made one method at a time
 * on a fresh copy of it, to compare a rendered variant with.
 */
import { type Layer, writePsdBuffer } from "ag-psd";
import sharp from "sharp";
import { ensureCanvasFactory } from "../../src/hosts/embedded/psd.js";
import type { HostLayer } from "../../src/protocol/index.js";
import { solid } from "./psd-fixtures.js";
import { quadrants, smartObjectLayer } from "./psd-smart.js";
import type { TestClient } from "./ws-client.js";

const PHOTO_ID = "7f0c2b9e-5d1a-4c8e-9a3b-2e6f4d8c1a70";
/** Layer comp ids: Square is the file as saved; Story hides the badge and moves the headline 30 px down. */
const SQUARE = 100;
const STORY = 101;

/** The card's size. */
export const CARD = { width: 120, height: 100 } as const;
/** A pixel the badge covers (red in Square, hidden in Story). */
export const BADGE_AT = { x: 104, y: 84 } as const;

/**
 * A designer's template: a white background, a solid fill layer "Tint" at 30 %, a smart object "Photo" (a 40×20
 * embedded PNG scaled 150 % and turned 30°), two text layers "Headline" and "Price", a red "Badge", and the layer
 * comps Square and Story.
 */
export async function cardTemplatePsd(): Promise<Buffer> {
  ensureCanvasFactory();
  const style = { font: { name: "DejaVuSans" }, fontSize: 12, fillColor: { r: 0, g: 0, b: 0 } };
  const frame = { width: 40, height: 20, scale: 1.5, degrees: 30, centre: { x: 60, y: 50 } };
  const photo = smartObjectLayer("Photo", PHOTO_ID, await quadrants(40, 20), frame);
  const children: Layer[] = [
    { name: "Background", id: 1, imageData: solid(CARD.width, CARD.height, [255, 255, 255, 255]) },
    { name: "Tint", id: 2, opacity: 0.3, vectorFill: { type: "color", color: { r: 0, g: 160, b: 0 } } },
    { ...photo.layer, id: 3 },
    {
      name: "Headline",
      id: 4,
      left: 4,
      top: 4,
      imageData: solid(60, 14, [0, 0, 0, 255]),
      text: { text: "Headline", transform: [1, 0, 0, 1, 4, 14], style },
      comps: {
        settings: [
          { compList: [SQUARE], offset: { x: 0, y: 0 } },
          { compList: [STORY], offset: { x: 0, y: 30 } },
        ],
      },
    },
    { name: "Price", id: 5, left: 4, top: 80, imageData: solid(40, 14, [0, 0, 0, 255]), text: { text: "9.99", transform: [1, 0, 0, 1, 4, 90], style } },
    {
      name: "Badge",
      id: 6,
      left: 94,
      top: 74,
      imageData: solid(20, 20, [255, 0, 0, 255]),
      comps: {
        settings: [
          { compList: [SQUARE], enabled: true },
          { compList: [STORY], enabled: false },
        ],
      },
    },
  ];
  const layerComps = {
    list: [
      { id: SQUARE, name: "Square", capturedInfo: 3 },
      { id: STORY, name: "Story", capturedInfo: 3 },
    ],
    lastApplied: SQUARE,
  };
  return writePsdBuffer({
    width: CARD.width,
    height: CARD.height,
    imageData: solid(CARD.width, CARD.height, [255, 255, 255, 255]),
    children,
    linkedFiles: [photo.file],
    imageResources: { layerComps },
  });
}

/** A solid PNG, as a data URI and as bytes. */
export async function pngOf(r: number, g: number, b: number, width = 30, height = 24): Promise<{ uri: string; bytes: Buffer }> {
  const bytes = await sharp({ create: { width, height, channels: 4, background: { r, g, b, alpha: 1 } } }).png().toBuffer();
  return { uri: `data:image/png;base64,${bytes.toString("base64")}`, bytes };
}

/** An image file's pixels, RGBA. */
export function pixels(path: string): Promise<Buffer> {
  return sharp(path).ensureAlpha().raw().toBuffer();
}

/** A variant as the tests write it: the wire's shape. */
export interface CardVariant {
  id: string;
  text?: Record<string, string>;
  visible?: Record<string, boolean>;
  images?: Record<string, string | Record<string, unknown>>;
  fills?: Record<string, string>;
  comp?: string;
  edits?: Array<{ method: string; params: Record<string, unknown> }>;
}

/**
 * The same variant made one method at a time on a fresh copy of `template` (its extra edits aside), exported to
 * `path`. Layers are named exactly: a name pattern's layers are the caller's to spell out.
 */
export async function byHand(client: TestClient, template: string, variant: Omit<CardVariant, "id">, path: string): Promise<void> {
  const { id: documentId } = await client.call<{ id: number }>("document:open", { path: template });
  if (variant.comp !== undefined) await client.call("layerComp:apply", { documentId, name: variant.comp });
  const layers = await client.call<HostLayer[]>("document:layers", { documentId });
  const idOf = (name: string): number => layers.find((layer) => layer.name === name)!.id;
  for (const [name, visible] of Object.entries(variant.visible ?? {})) await client.call("layer:update", { documentId, layerId: idOf(name), visible });
  for (const [name, text] of Object.entries(variant.text ?? {})) await client.call("layer:updateText", { documentId, layerId: idOf(name), text });
  for (const [name, image] of Object.entries(variant.images ?? {})) {
    await client.call("layer:replaceContents", { ...(typeof image === "string" ? { image } : image), documentId, layerId: idOf(name) });
  }
  for (const [name, color] of Object.entries(variant.fills ?? {})) await client.call("layer:update", { documentId, layerId: idOf(name), fill: { type: "solid", color } });
  await client.call("document:export", { documentId, path });
  await client.call("document:close", { documentId });
}
