import { describe, expect, it } from "vitest";
import { parseFontList, splitFontName } from "../../../src/hosts/gimp/fonts.js";

describe("GIMP's font names", () => {
  it("splits a Pango description into family and style at its trailing style words", () => {
    expect(splitFontName("DejaVu Sans")).toEqual({ family: "DejaVu Sans", style: "Regular", postScriptName: "DejaVu Sans" });
    expect(splitFontName("DejaVu Sans Bold Oblique Semi-Condensed")).toMatchObject({ family: "DejaVu Sans", style: "Bold Oblique Semi-Condensed" });
    expect(splitFontName("DejaVu Sans Mono Bold")).toMatchObject({ family: "DejaVu Sans Mono", style: "Bold" });
    // A comma ends a family whose last word Pango would read as a style.
    expect(splitFontName("Nimbus Roman,")).toMatchObject({ family: "Nimbus Roman", style: "Regular" });
    expect(splitFontName("Nimbus Roman, Bold Italic")).toMatchObject({ family: "Nimbus Roman", style: "Bold Italic" });
    expect(splitFontName("Black")).toMatchObject({ family: "Black", style: "Regular" });
  });

  it("lists gimp-fonts-get-list's names once each, by family then style", () => {
    const fonts = parseFontList([3, ["DejaVu Serif", "DejaVu Sans Bold", "DejaVu Sans", "DejaVu Sans"]]);
    expect(fonts.map((f) => f.postScriptName)).toEqual(["DejaVu Sans Bold", "DejaVu Sans", "DejaVu Serif"]);
  });
});
