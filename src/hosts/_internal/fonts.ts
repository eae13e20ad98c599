/**
 * Naming fonts the same way on every editor: how a text edit's `font` is matched against the editor's fonts, and
 * the `FONT_NOT_FOUND` answer, with the editor's closest names, when it matches none.
 */
import { BridgeError } from "../../protocol/errors.js";
import { type FontInfo, MAX_NEAR_FONT_NAMES } from "../../protocol/text.js";

/** Lower case, without spaces, hyphens or underscores: `Noto Sans-Bold` and `notosans bold` name one font. */
export const fontKey = (name: string): string => name.toLowerCase().replace(/[\s_-]+/g, "");

/** The styles a family's name alone means, best first. */
const REGULAR_STYLES = ["regular", "book", "roman", "normal", "medium"];

/**
 * The font `name` names among `fonts`: its PostScript name, `<family> <style>`, or the family alone (its regular
 * style, else its first). Compared without case, spaces or hyphens. Undefined when none matches.
 */
export function matchFont<F extends FontInfo>(fonts: readonly F[], name: string): F | undefined {
  const key = fontKey(name);
  const exact = fonts.find((f) => fontKey(f.postScriptName) === key) ?? fonts.find((f) => fontKey(`${f.family} ${f.style}`) === key);
  if (exact !== undefined) return exact;
  const family = fonts.filter((f) => fontKey(f.family) === key);
  if (family.length === 0) return undefined;
  for (const style of REGULAR_STYLES) {
    const regular = family.find((f) => fontKey(f.style) === style);
    if (regular !== undefined) return regular;
  }
  return family[0];
}

/** Edit distance between two strings (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * Up to {@link MAX_NEAR_FONT_NAMES} of the fonts' names closest to `name`, closest first: names that contain it
 * come first, then by edit distance. Each font is offered by `<family> <style>`.
 */
export function nearFontNames(fonts: readonly FontInfo[], name: string): string[] {
  const key = fontKey(name);
  const scored = new Map<string, number>();
  for (const font of fonts) {
    const shown = `${font.family} ${font.style}`;
    const score = Math.min(
      ...[font.postScriptName, shown, font.family].map((candidate) => {
        const other = fontKey(candidate);
        // A name that holds what was asked (`DejaVu` in `DejaVu Sans Bold`) is closer than any misspelling.
        return other.includes(key) ? (other.length - key.length) / 1000 : distance(key, other);
      }),
    );
    scored.set(shown, Math.min(score, scored.get(shown) ?? Number.POSITIVE_INFINITY));
  }
  return [...scored]
    .sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))
    .slice(0, MAX_NEAR_FONT_NAMES)
    .map(([shown]) => shown);
}

/** @returns `FONT_NOT_FOUND {font, near}` for a name that matches none of the editor's fonts. */
export function fontNotFound(fonts: readonly FontInfo[], name: string): BridgeError {
  const near = nearFontNames(fonts, name);
  const hint = near.length === 0 ? "it has no fonts" : `closest: ${near.slice(0, 3).join(", ")}`;
  return new BridgeError("FONT_NOT_FOUND", `The editor has no font "${name}" (${hint})`, { details: { font: name, near } });
}

/** `NOT_SUPPORTED {editor, capability: "text"}`, for an editor that cannot make text layers yet. */
export function textNotSupported(editor: string): BridgeError {
  return new BridgeError("NOT_SUPPORTED", `The ${editor} editor cannot make text layers yet`, { details: { editor, capability: "text" } });
}
