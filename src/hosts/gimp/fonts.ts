/*
 * GIMP's fonts as `font:list` shows them. GIMP 2.10 names each font by a Pango font description
 * (`gimp-fonts-get-list`): the family, then the words of its style (`DejaVu Sans Bold Oblique Semi-Condensed`),
 * with a comma after a family whose own last word would read as a style (`Nimbus Roman, Bold`). It knows no
 * PostScript names: a font's `postScriptName` here is the name GIMP knows it by, the one `gimp-text-layer-set-font`
 * takes and `gimp-text-layer-get-font` answers. A PostScript name still finds its font when it only differs by
 * spaces, hyphens or case (`DejaVuSans-Bold` is `DejaVu Sans Bold`).
 */
import type { FontInfo } from "../../protocol/index.js";
import { asList, asString, type Sexp } from "./scheme.js";

/**
 * The words Pango reads as a font's style rather than its family, lower case without hyphens: weights, slants,
 * variants, stretches and gravities (Pango's `pango_font_description_from_string`).
 */
const STYLE_WORDS: ReadonlySet<string> = new Set(
  [
    ...["thin", "ultralight", "extralight", "light", "semilight", "demilight", "book", "regular", "medium", "semibold", "demibold"],
    ...["bold", "ultrabold", "extrabold", "heavy", "black", "ultraheavy", "extraheavy", "ultrablack", "extrablack"],
    ...["normal", "roman", "oblique", "italic", "smallcaps", "allsmallcaps", "petitecaps", "allpetitecaps", "unicase", "titlecaps"],
    ...["ultracondensed", "extracondensed", "condensed", "semicondensed", "semiexpanded", "expanded", "extraexpanded", "ultraexpanded"],
    ...["notrotated", "south", "upsidedown", "north", "rotatedleft", "east", "rotatedright", "west"],
  ],
);

/** The style of a font whose description names none. */
const PLAIN_STYLE = "Regular";

/** A Pango font description as family and style: the trailing style words are the style. */
export function splitFontName(name: string): FontInfo {
  const comma = name.lastIndexOf(",");
  if (comma >= 0) {
    const style = name.slice(comma + 1).trim();
    return { family: name.slice(0, comma).trim(), style: style === "" ? PLAIN_STYLE : style, postScriptName: name };
  }
  const words = name.split(" ").filter((w) => w !== "");
  let cut = words.length;
  // The family keeps at least one word ("Black" alone is a family, not a style).
  while (cut > 1 && STYLE_WORDS.has(words[cut - 1]!.toLowerCase().replace(/-/g, ""))) cut--;
  const style = words.slice(cut).join(" ");
  return { family: words.slice(0, cut).join(" "), style: style === "" ? PLAIN_STYLE : style, postScriptName: name };
}

/** `(gimp-fonts-get-list "")` — `(count (name …))` — as fonts, each once, by family then style. */
export function parseFontList(value: Sexp): FontInfo[] {
  const [, names] = asList(value, "font list") as [Sexp, Sexp];
  const seen = new Set<string>();
  const fonts: FontInfo[] = [];
  for (const entry of asList(names, "font names")) {
    const name = asString(entry, "font name");
    if (seen.has(name)) continue;
    seen.add(name);
    fonts.push(splitFontName(name));
  }
  return fonts.sort((a, b) => a.family.localeCompare(b.family) || a.style.localeCompare(b.style));
}
