/**
 * How far an export is from the composite Photoshop stored in a PSD: both flattened over white and over black,
 * then the RMSE of the channels (0–255) and the share of pixels with a channel off by more than 5 (2 %). The worse
 * backdrop counts, so a wrong alpha shows even where the colours agree.
 */
import { readFile } from "node:fs/promises";
import { initializeCanvas, readPsd } from "ag-psd";
import sharp from "sharp";

/** RMSE (0–255) and share (0–1) of pixels with a channel off by more than {@link OFF_BY}. */
export interface CompositeDiff {
  readonly rmse: number;
  readonly share: number;
}

/** A channel differing by more than this (2 % of 255) makes its pixel count as off. */
export const OFF_BY = 5;

/** "Close to Photoshop": at most 1 % of the pixels off and an RMSE of at most 3. */
export function isClose(diff: CompositeDiff): boolean {
  return diff.share <= 0.01 && diff.rmse <= 3;
}

let canvasReady = false;

/** The composite stored in a PSD (ag-psd removes the white matte of transparent documents), straight RGBA. */
export async function storedComposite(path: string): Promise<{ data: Uint8ClampedArray; width: number; height: number }> {
  if (!canvasReady) {
    initializeCanvas(
      (width: number, height: number) => ({ width, height }) as never,
      (width: number, height: number) => ({ width, height, data: new Uint8ClampedArray(width * height * 4) }) as never,
    );
    canvasReady = true;
  }
  const psd = readPsd(await readFile(path), { useImageData: true, skipLayerImageData: true, skipThumbnail: true });
  const image = psd.imageData;
  if (!image) throw new Error(`${path} stores no composite`);
  return { data: Uint8ClampedArray.from(image.data), width: image.width, height: image.height };
}

function flattenedDiff(a: Uint8Array | Uint8ClampedArray, b: Uint8Array | Uint8ClampedArray, backdrop: number): CompositeDiff {
  let squares = 0;
  let off = 0;
  const pixels = a.length / 4;
  for (let i = 0; i < a.length; i += 4) {
    const aa = (a[i + 3] as number) / 255;
    const ba = (b[i + 3] as number) / 255;
    let worst = 0;
    for (let c = 0; c < 3; c++) {
      const va = (a[i + c] as number) * aa + backdrop * (1 - aa);
      const vb = (b[i + c] as number) * ba + backdrop * (1 - ba);
      const d = Math.abs(va - vb);
      squares += d * d;
      if (d > worst) worst = d;
    }
    if (worst > OFF_BY) off++;
  }
  return { rmse: Math.sqrt(squares / (pixels * 3)), share: off / pixels };
}

/** The difference between PNG bytes and the composite stored in the PSD at `path` (sizes must agree). */
export async function diffFromStored(png: Uint8Array, path: string): Promise<CompositeDiff> {
  const stored = await storedComposite(path);
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.width !== stored.width || info.height !== stored.height) {
    throw new Error(`export is ${info.width}×${info.height}, the stored composite ${stored.width}×${stored.height}`);
  }
  const white = flattenedDiff(data, stored.data, 255);
  const black = flattenedDiff(data, stored.data, 0);
  return { rmse: Math.max(white.rmse, black.rmse), share: Math.max(white.share, black.share) };
}
