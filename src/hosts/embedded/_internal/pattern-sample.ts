/*
 * Reading a pattern tile at a document position, shared by pattern fill layers and the pattern overlay and
 * stroke effects. A tile at 100 % is copied pixel for pixel. Scaled, Photoshop resamples it bilinearly, with the
 * tile's pixel `(i, j)` landing exactly on document pixel `origin + scale · (i, j)` and the pixels between them
 * blended (a 200 % line pattern alternates the line and a half-strength copy of it): the tile is read at
 * `(p − origin) / scale`, wrapping at its edges.
 */
import type { PatternInfo } from "ag-psd";

/** How a tile is placed: the document position of its top-left corner and its size relative to the pattern. */
export interface TilePlacement {
  readonly originX: number;
  readonly originY: number;
  /** 1 = 100 %; positive. */
  readonly scale: number;
}

/** Whether the tile holds a whole `w × h` RGBA picture. */
export function hasPixels(tile: PatternInfo): boolean {
  const { w, h } = tile.bounds;
  return w > 0 && h > 0 && tile.data.length >= w * h * 4;
}

const wrap = (v: number, n: number): number => ((v % n) + n) % n;

/**
 * Writes the tile's colour at document pixel `(x, y)` into `out` at `o` (straight RGBA). A `scale` of 1 and whole
 * origins read one pixel; anything else blends the four around the position.
 */
export function sampleTile(tile: PatternInfo, place: TilePlacement, x: number, y: number, out: Uint8ClampedArray, o: number): void {
  const tw = tile.bounds.w;
  const th = tile.bounds.h;
  const src = tile.data;
  const u = (x - place.originX) / place.scale;
  const v = (y - place.originY) / place.scale;
  const u0 = Math.floor(u);
  const v0 = Math.floor(v);
  const fu = u - u0;
  const fv = v - v0;
  const x0 = wrap(u0, tw);
  const y0 = wrap(v0, th);
  const a = (y0 * tw + x0) * 4;
  if (fu === 0 && fv === 0) {
    out[o] = src[a] as number;
    out[o + 1] = src[a + 1] as number;
    out[o + 2] = src[a + 2] as number;
    out[o + 3] = src[a + 3] as number;
    return;
  }
  const x1 = x0 + 1 === tw ? 0 : x0 + 1;
  const y1 = y0 + 1 === th ? 0 : y0 + 1;
  const b = (y0 * tw + x1) * 4;
  const c = (y1 * tw + x0) * 4;
  const d = (y1 * tw + x1) * 4;
  const wa = (1 - fu) * (1 - fv);
  const wb = fu * (1 - fv);
  const wc = (1 - fu) * fv;
  const wd = fu * fv;
  // Blended premultiplied, so a transparent texel lends no colour.
  const alpha = (src[a + 3] as number) * wa + (src[b + 3] as number) * wb + (src[c + 3] as number) * wc + (src[d + 3] as number) * wd;
  for (let k = 0; k < 3; k++) {
    const sum =
      (src[a + k] as number) * (src[a + 3] as number) * wa +
      (src[b + k] as number) * (src[b + 3] as number) * wb +
      (src[c + k] as number) * (src[c + 3] as number) * wc +
      (src[d + k] as number) * (src[d + 3] as number) * wd;
    out[o + k] = alpha > 0 ? sum / alpha : 0;
  }
  out[o + 3] = alpha;
}
