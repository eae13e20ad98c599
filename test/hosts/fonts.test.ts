import { describe, expect, it } from "vitest";
import { fontNotFound, matchFont, nearFontNames } from "../../src/hosts/_internal/fonts.js";
import { ERROR_RULES, MAX_NEAR_FONT_NAMES, toProtocolError } from "../../src/protocol/index.js";

const FONTS = [
  { family: "DejaVu Sans", style: "Book", postScriptName: "DejaVuSans" },
  { family: "DejaVu Sans", style: "Bold", postScriptName: "DejaVuSans-Bold" },
  { family: "DejaVu Serif", style: "Book", postScriptName: "DejaVuSerif" },
  { family: "Noto Sans", style: "Regular", postScriptName: "NotoSans-Regular" },
  { family: "Noto Sans", style: "Italic", postScriptName: "NotoSans-Italic" },
  { family: "Noto Sans Arabic", style: "Regular", postScriptName: "NotoSansArabic-Regular" },
  ...Array.from({ length: 20 }, (_, i) => ({ family: `Noto Sans Extra ${i}`, style: "Regular", postScriptName: `NotoSansExtra${i}-Regular` })),
];

describe("naming fonts", () => {
  it("matches a PostScript name, a full name or a family (its regular style), without case, spaces or hyphens", () => {
    expect(matchFont(FONTS, "DejaVuSans-Bold")?.style).toBe("Bold");
    expect(matchFont(FONTS, "dejavu sans bold")?.postScriptName).toBe("DejaVuSans-Bold");
    expect(matchFont(FONTS, "DejaVu Sans")?.style).toBe("Book");
    expect(matchFont(FONTS, "Noto Sans")?.postScriptName).toBe("NotoSans-Regular");
    expect(matchFont(FONTS, "Helvetica")).toBeUndefined();
  });

  it("offers at most ten near names, the closest first", () => {
    const near = nearFontNames(FONTS, "Noto Sans Arabik");
    expect(near.length).toBeLessThanOrEqual(MAX_NEAR_FONT_NAMES);
    expect(MAX_NEAR_FONT_NAMES).toBe(10);
    expect(near[0]).toBe("Noto Sans Arabic Regular");
    expect(nearFontNames(FONTS, "DejaVu")[0]).toMatch(/^DejaVu /);
  });

  it("FONT_NOT_FOUND is 404, not retryable, with the name and the near names", () => {
    expect(ERROR_RULES.FONT_NOT_FOUND).toEqual({ status: 404, retryable: false, source: "host" });
    const wire = toProtocolError(fontNotFound(FONTS, "Notto Sans"));
    expect(wire).toMatchObject({ code: "FONT_NOT_FOUND", retryable: false, details: { font: "Notto Sans" } });
    expect((wire.details as { near: string[] }).near[0]).toMatch(/^Noto Sans/);
  });
});
