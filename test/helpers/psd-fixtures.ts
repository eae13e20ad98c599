/**
 * PSD files made in the test with ag-psd, shaped like what Photoshop and other tools write: a flattened file (no
 * layer records, only the merged image), a file with neither, and a layered file with a text layer and an ICC
 * profile (ag-psd cannot write ICC profiles, so the resource block is spliced in as Photoshop stores it).
 */
import { writePsdBuffer } from "ag-psd";
import type { Layer } from "ag-psd";
import sharp from "sharp";

export type Rgba = [number, number, number, number];

export function solid(width: number, height: number, rgba: Rgba): { width: number; height: number; data: Uint8ClampedArray } {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
  return { width, height, data };
}

/** Offset of the layer and mask section's length field (PSD, not PSB). */
function layerSectionAt(psd: Buffer): number {
  let at = 26;
  at += 4 + psd.readUInt32BE(at); // colour mode data
  at += 4 + psd.readUInt32BE(at); // image resources
  return at;
}

/** A flattened PSD: an empty layer and mask section, the picture only in the merged image. */
export function flattenedPsd(width: number, height: number, rgba: Rgba): Buffer {
  const written = writePsdBuffer({ width, height, imageData: solid(width, height, rgba) });
  const at = layerSectionAt(written);
  return Buffer.concat([written.subarray(0, at), Buffer.alloc(4), written.subarray(at + 4 + written.readUInt32BE(at))]);
}

/** A PSD with no layer records and no merged image: a file cut after its (empty) layer section. */
export function psdWithoutImage(width: number, height: number): Buffer {
  const flat = flattenedPsd(width, height, [0, 0, 0, 255]);
  return flat.subarray(0, layerSectionAt(flat) + 4);
}

/** Inserts an image resource block (`8BIM`, id, empty name, size, data padded to even) into a PSD. */
export function withImageResource(psd: Buffer, id: number, data: Uint8Array): Buffer {
  const at = 26 + 4 + psd.readUInt32BE(26);
  const length = psd.readUInt32BE(at);
  const block = Buffer.alloc(12 + data.length + (data.length % 2));
  block.write("8BIM", 0, "latin1");
  block.writeUInt16BE(id, 4);
  block.writeUInt16BE(0, 6);
  block.writeUInt32BE(data.length, 8);
  Buffer.from(data).copy(block, 12);
  const out = Buffer.concat([psd.subarray(0, at), Buffer.alloc(4), psd.subarray(at + 4, at + 4 + length), block, psd.subarray(at + 4 + length)]);
  out.writeUInt32BE(length + block.length, at);
  return out;
}

/** A real sRGB ICC profile, as sharp embeds it. */
export async function srgbProfile(): Promise<Buffer> {
  const png = await sharp({ create: { width: 1, height: 1, channels: 3, background: "#ffffff" } }).withIccProfile("srgb").png().toBuffer();
  return (await sharp(png).metadata()).icc!;
}

/** Background (id 1), a red pixel layer (id 2) and a text layer "Hello" (id 3, its pixels rendered), with an ICC profile. */
export async function textAndIccPsd(): Promise<Buffer> {
  const children: Layer[] = [
    { name: "Background", id: 1, imageData: solid(48, 32, [255, 255, 255, 255]) },
    { name: "Red", id: 2, left: 4, top: 4, imageData: solid(10, 10, [255, 0, 0, 255]) },
    {
      name: "Hello",
      id: 3,
      left: 20,
      top: 10,
      imageData: solid(20, 10, [0, 0, 0, 255]),
      text: { text: "Hello", transform: [1, 0, 0, 1, 20, 18], style: { font: { name: "ArialMT" }, fontSize: 10, fillColor: { r: 0, g: 0, b: 0 } } },
    },
  ];
  const psd = writePsdBuffer({ width: 48, height: 32, imageData: solid(48, 32, [255, 255, 255, 255]), children });
  return withImageResource(psd, 1039, await srgbProfile());
}
