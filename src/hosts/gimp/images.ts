import { readFile, rm } from "node:fs/promises";
import sharp from "sharp";
import type { HostRect, ImageFormat } from "../../protocol/index.js";
import { withFormat } from "../_internal/file-format.js";

/** Reads and removes a PNG GIMP wrote into the exchange directory. */
export async function takePng(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } finally {
    await rm(file, { force: true });
  }
}

/** Re-encodes GIMP's PNG in the wanted format; JPEG has no alpha and is flattened onto white. */
export async function convert(png: Buffer, format: ImageFormat, quality: number | undefined): Promise<Uint8Array> {
  if (format === "png") return png;
  return withFormat(sharp(png), format, quality).toBuffer();
}

/** The `d` attributes of the paths in an SVG document GIMP exported, joined. */
export function svgPathData(svg: string): string {
  return [...svg.matchAll(/\sd="([^"]*)"/g)].map((m) => m[1]).join(" ");
}

/**
 * Strokes a path given in document pixels onto an exported layer image. The overlay's viewBox is the layer's
 * rectangle, so the path lands where the layer sits however the export was scaled; the stroke width is in output
 * pixels. Only path-command characters and numbers of `d` reach the SVG.
 */
export async function strokePath(
  png: Buffer,
  pathData: string,
  layer: HostRect,
  output: { width: number; height: number },
  stroke: { rgba: readonly [number, number, number, number]; width: number },
): Promise<Buffer> {
  const [r, g, b, a] = stroke.rgba;
  const d = pathData.replace(/[^0-9eE.,\s+\-MLCQZmlcqzHVhvSsTtAa]/g, "");
  const overlay =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${output.width}" height="${output.height}" ` +
    `viewBox="${layer.x} ${layer.y} ${layer.width} ${layer.height}" preserveAspectRatio="none">` +
    `<path d="${d}" fill="none" stroke="rgb(${r},${g},${b})" stroke-opacity="${a / 255}" ` +
    `stroke-width="${(stroke.width * layer.width) / output.width}"/></svg>`;
  return sharp(png).composite([{ input: Buffer.from(overlay) }]).png().toBuffer();
}
