import type { Metadata } from "sharp";
import { addFeature, type FileFeatures } from "../../files/index.js";
import type { DataLoss } from "../../protocol/index.js";

/**
 * What a flat image file (PNG, JPEG, WebP, TIFF, GIF) holds beyond 8-bit RGB(A) pixels, from sharp's header read:
 * an ICC profile, 16-bit samples, grayscale, and EXIF/XMP/IPTC metadata. A layered save that drops them loses
 * data the user opened.
 */
export function imageFeatures(meta: Metadata): FileFeatures {
  const features: DataLoss[] = [];
  if (meta.icc !== undefined) addFeature(features, "iccProfile");
  if (meta.depth !== undefined && meta.depth !== "uchar" && meta.depth !== "char") addFeature(features, "bitDepth", undefined, meta.depth === "ushort" ? "16-bit" : meta.depth);
  if (meta.space === "b-w" || meta.space === "grey16") addFeature(features, "colorMode", undefined, "grayscale");
  if (meta.exif !== undefined || meta.xmp !== undefined || meta.iptc !== undefined) addFeature(features, "metadata", undefined, "XMP, EXIF or IPTC");
  return features;
}
