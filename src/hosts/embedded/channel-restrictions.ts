/*
 * Channel restrictions (Photoshop's advanced blending: the R, G, B checkboxes of a layer's blending options). A
 * layer with a channel unchecked leaves that channel of what is below alone: it is drawn as usual, effects
 * included (the stored composites show a white inner glow lifting red and green and not blue), and the channel is
 * then put back as it was. The channel is kept in premultiplied terms (its colour times the coverage), so where the
 * layer covers transparency the kept channel has nothing to show and reads as black, as an unchecked channel over
 * transparency looks in Photoshop.
 */
import type { Raster } from "./raster.js";

/** The document's colour as far as channel numbers go (a `StyleContext` satisfies it). */
export interface ChannelSpace {
  /** A grayscale document: its one channel is the grey the raster holds in all three. */
  readonly grayscale?: boolean | undefined;
  /** The file's mode and depth when it is not 8-bit RGB. */
  readonly sourceColor?: { readonly mode: string } | undefined;
}

/**
 * The raster channels (0 red, 1 green, 2 blue) a layer restricted by `restricted` (the file's channel numbers) leaves
 * alone in a document of `space`. Only RGB and grayscale files are honoured: a CMYK, Lab or multichannel file's
 * numbers name channels the editor's sRGB raster does not hold (the restriction is kept for saving all the same).
 */
export function keptChannels(restricted: readonly number[] | undefined, space: ChannelSpace | undefined): number[] {
  if (restricted === undefined || restricted.length === 0) return [];
  const mode = space?.sourceColor?.mode;
  if (space?.grayscale === true || mode === "grayscale") return restricted.includes(0) ? [0, 1, 2] : [];
  if (mode !== undefined && mode !== "rgb") return [];
  return [0, 1, 2].filter((channel) => restricted.includes(channel));
}

/**
 * Puts `channels` of `out` back as they were in `before` (the same raster's bytes before the layer was drawn), in
 * premultiplied terms: `c = c_before · α_before / α_now`. Alpha and the other channels keep what drawing gave them.
 * One pass of a few operations per pixel, far less than the drawing it follows, so it reports no rows of its own.
 */
export function restoreChannels(out: Raster, before: Uint8ClampedArray, channels: readonly number[]): void {
  if (channels.length === 0) return;
  const d = out.data;
  for (let i = 0; i < d.length; i += 4) {
    const now = d[i + 3] as number;
    if (now === 0) continue;
    const scale = (before[i + 3] as number) / now;
    // A clamped array rounds to the nearest byte on store.
    for (const channel of channels) d[i + channel] = (before[i + channel] as number) * scale;
  }
}
