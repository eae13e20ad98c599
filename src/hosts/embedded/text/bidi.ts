/**
 * Mixed directions in a paragraph: the Unicode bidirectional algorithm (UAX #9) from the `bidi-js` package gives
 * each character its embedding level (odd: right to left), so numbers and Latin words inside Arabic or Hebrew keep
 * their own direction; a line's items are then put in visual order by the algorithm's rules L1 and L2.
 */
import { createRequire } from "node:module";
import type { Bidi } from "bidi-js";

let bidi: Bidi | undefined;

/** Each UTF-16 code unit's embedding level in a paragraph whose base direction is `rtl` or not. */
export function embeddingLevels(paragraph: string, rtl: boolean): Uint8Array {
  // The package is CommonJS whose module is the factory itself.
  bidi ??= (createRequire(import.meta.url)("bidi-js") as () => Bidi)();
  return bidi.getEmbeddingLevels(paragraph, rtl ? "rtl" : "ltr").levels;
}

/**
 * A line's items in visual order, left to right. `level` is each item's embedding level; trailing white space
 * (`space`) takes the paragraph's `baseLevel` (rule L1), then every run at a level or above is reversed, from the
 * highest level down to the lowest odd one (rule L2).
 */
export function visualOrder<T>(items: readonly T[], level: (item: T) => number, space: (item: T) => boolean, baseLevel: number): T[] {
  const levels = items.map(level);
  for (let i = items.length - 1; i >= 0 && space(items[i]!); i--) levels[i] = baseLevel;
  const order = items.map((_, i) => i);
  if (levels.length === 0) return [];
  const highest = Math.max(...levels);
  const lowestOdd = Math.min(...levels) | 1;
  for (let at = highest; at >= lowestOdd; at--) {
    for (let i = 0; i < order.length; ) {
      if (levels[order[i]!]! < at) {
        i++;
        continue;
      }
      let end = i;
      while (end < order.length && levels[order[end]!]! >= at) end++;
      order.splice(i, end - i, ...order.slice(i, end).reverse());
      i = end;
    }
  }
  return order.map((i) => items[i]!);
}
