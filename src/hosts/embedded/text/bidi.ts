/**
 * The Unicode bidirectional algorithm for one paragraph, by the `bidi-js` package: each character's embedding
 * level (odd: right to left) with the paragraph's own level, and the visual order of a line's pieces from their
 * levels. Numbers and Latin words inside right-to-left text, and right-to-left words inside left-to-right text, are
 * then ordered as a browser orders them.
 */
import bidiModule from "bidi-js";

// The package is CommonJS whose `module.exports` is the factory, while its types declare it as `default`.
const bidiFactory = bidiModule as unknown as typeof bidiModule.default;
const bidi = bidiFactory();

/** A paragraph's levels: one per UTF-16 code unit, and the paragraph's own (0 left to right, 1 right to left). */
export interface BidiLevels {
  readonly levels: Uint8Array;
  readonly level: number;
}

/**
 * Resolves `paragraph`'s embedding levels. `direction` is the paragraph's base direction; left out, it is the
 * direction of its first strong letter (rules P2 and P3), left to right when it has none.
 */
export function bidiLevels(paragraph: string, direction: "ltr" | "rtl" | undefined): BidiLevels {
  if (paragraph.length === 0) return { levels: new Uint8Array(0), level: direction === "rtl" ? 1 : 0 };
  const resolved = bidi.getEmbeddingLevels(paragraph, direction ?? "auto");
  return { levels: resolved.levels, level: resolved.paragraphs[0]?.level ?? (direction === "rtl" ? 1 : 0) };
}

/**
 * The visual order of a line's pieces, given each piece's level in logical order (rule L2): from the highest level
 * down to the lowest odd one, every longest sequence of pieces at that level or above is reversed. Returns the
 * pieces' logical indexes, leftmost first.
 */
export function visualOrder(levels: readonly number[]): number[] {
  const order = levels.map((_, i) => i);
  if (levels.length === 0) return order;
  const highest = Math.max(...levels);
  let lowestOdd = Math.min(...levels);
  if (lowestOdd % 2 === 0) lowestOdd++;
  for (let level = highest; level >= lowestOdd; level--) {
    let i = 0;
    while (i < order.length) {
      if (levels[order[i]!]! < level) {
        i++;
        continue;
      }
      let end = i;
      while (end < order.length && levels[order[end]!]! >= level) end++;
      const reversed = order.slice(i, end).reverse();
      order.splice(i, reversed.length, ...reversed);
      i = end;
    }
  }
  return order;
}
