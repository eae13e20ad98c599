/** Types of merged.js: the stored composite of a PSD/PSB as 8-bit straight RGBA. */
export interface MergedImage {
  readonly width: number;
  readonly height: number;
  /** Straight (not premultiplied) RGBA, 4 bytes per pixel. */
  readonly rgba: Uint8ClampedArray;
  /** The document is gray (grayscale, duotone, bitmap, one- or two-channel multichannel). */
  readonly grayscale: boolean;
  readonly colourMode: string;
  readonly depth: number;
  readonly version: "psd" | "psb";
  readonly channels: number;
  readonly compression: "raw" | "rle" | "zip" | "zip-prediction";
  /** The composite has a transparency channel. */
  readonly hasAlpha: boolean;
  /** The version info resource's "has real merged data" flag; undefined when the file has none. */
  readonly hasRealMergedData: boolean | undefined;
  /** What was approximated or left out. */
  readonly notes: string[];
}
export declare function decodeMerged(bytes: Uint8Array): MergedImage;
