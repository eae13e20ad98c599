/**
 * What a GIMP save would drop. GIMP rewrites a file from its own model, so the comparison is with the file the
 * image was opened from: its features (read by the bridge when it opens the file on this machine) minus what
 * GIMP 2.10 keeps, plus GIMP text layers when writing PSD (its PSD export rasterises them).
 */
import type { Psd } from "ag-psd";
import { readPsd } from "ag-psd";
import sharp, { type Metadata } from "sharp";
import { addFeature, lostFeatures, type FileFeatures } from "../../files/index.js";
import type { DataLoss } from "../../protocol/index.js";
import { imageFeatures } from "../_internal/image-features.js";
import { imageResourceIds, psdFeatures, readPsdHeader } from "../_internal/psd-features.js";

/**
 * Features GIMP 2.10 keeps from a file it opened, by format it writes. Measured by opening files that had every
 * feature, saving them with `file-psd-save` / `gimp-xcf-save`, and reading the result back: text layers,
 * effects, adjustment and fill layers, vector masks, knockout, fill opacity and foreign metadata did not come
 * back; clipping came back restructured (a group GIMP added), so it counts as lost. 16-bit precision survives
 * XCF; GIMP 2.10's PSD export writes 8 bits.
 */
export const GIMP_KEEPS: Readonly<Record<"psd" | "xcf", ReadonlySet<string>>> = {
  psd: new Set(["iccProfile", "guides", "groupMasks", "disabledMasks"]),
  xcf: new Set(["iccProfile", "guides", "groupMasks", "disabledMasks", "bitDepth"]),
};

/** GIMP keeps grayscale images grayscale; other colour modes (CMYK, Lab, indexed…) are converted on load. */
const keptColorMode = (feature: DataLoss): boolean => feature.kind === "colorMode" && feature.detail === "grayscale";

/**
 * Features of a file GIMP is about to open, from the bytes the bridge read of it (bounded like every read). Layer
 * ids are left out: they are the file's, not GIMP's.
 */
export async function sourceFeatures(bytes: Buffer): Promise<FileFeatures> {
  const header = readPsdHeader(bytes);
  if (header === undefined) return imageFeatures(await sharp(bytes, { limitInputPixels: false }).metadata().catch(() => ({}) as Metadata));
  let psd: Psd;
  try {
    psd = readPsd(bytes, { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true, skipLinkedFilesData: true, useImageData: true });
  } catch {
    // GIMP may still open it; since nothing can be said of what a save keeps, the user must agree to any loss.
    return [{ kind: "unknown", count: 1, detail: "the bridge could not read this PSD to tell what a save would keep" }];
  }
  return psdFeatures(psd, header, imageResourceIds(bytes), () => undefined).map(({ layerIds: _, ...feature }) => feature);
}

/** What saving to `format` drops: the source's features GIMP does not keep, and text layers written as PSD. */
export function gimpSaveLosses(features: FileFeatures, format: "psd" | "xcf", textLayerIds: readonly number[]): DataLoss[] {
  const losses = lostFeatures(
    features.filter((feature) => !keptColorMode(feature)),
    GIMP_KEEPS[format],
  );
  if (format === "psd" && textLayerIds.length > 0) {
    const own = losses.find((loss) => loss.kind === "textLayers");
    if (own === undefined) {
      const text: DataLoss[] = [];
      for (const id of textLayerIds) addFeature(text, "textLayers", id, "GIMP text layers are written as pixels");
      losses.push(...text);
    }
  }
  return losses;
}
