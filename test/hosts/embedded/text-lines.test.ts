/**
 * The text engine's line rules: the visual order of mixed-direction text (the Unicode bidirectional algorithm's
 * levels from `bidi-js`, reordered by rule L2), and where lines may break in scripts written without spaces
 * (`Intl.Segmenter`'s words for Thai; the Unicode line breaking algorithm's rules for Chinese and Japanese).
 * The layout cases use DejaVu Sans (Debian's `fonts-dejavu-core`, which has Arabic) and Noto Sans Thai
 * (`fonts-noto-core`), and say so when one is absent.
 */
import { describe, expect, it } from "vitest";
import { bidiLevels, visualOrder } from "../../../src/hosts/embedded/text/bidi.js";
import { breakOpportunities } from "../../../src/hosts/embedded/text/breaks.js";
import { FontCatalogue } from "../../../src/hosts/embedded/text/catalogue.js";
import { layoutText } from "../../../src/hosts/embedded/text/layout.js";
import type { TextSpec } from "../../../src/hosts/edits.js";

describe("mixed directions", () => {
  it("gives numbers and Latin words inside right-to-left text their own level", () => {
    const text = "مرحبا 123 abc";
    const resolved = bidiLevels(text, "rtl");
    const levels = [...resolved.levels];
    expect(resolved.level).toBe(1);
    expect(levels.slice(0, 5)).toEqual([1, 1, 1, 1, 1]);
    expect(levels.slice(6, 9)).toEqual([2, 2, 2]);
    expect(levels.slice(10)).toEqual([2, 2, 2]);
    expect([...bidiLevels("abc", "ltr").levels]).toEqual([0, 0, 0]);
    // Left out, the base direction is the first letter's.
    expect(bidiLevels("مرحبا abc", undefined).level).toBe(1);
    expect(bidiLevels("abc مرحبا", undefined).level).toBe(0);
  });

  it("orders a line's items by rule L2: higher levels reversed inside lower ones", () => {
    // a b 1 2 c and a space, the space already at the paragraph's level (rule L1, applied by the layout).
    const ids = ["a", "b", "1", "2", "c", " "];
    expect(visualOrder([1, 1, 2, 2, 1, 1]).map((i) => ids[i])).toEqual([" ", "c", "1", "2", "b", "a"]);
    expect(visualOrder([1, 1])).toEqual([1, 0]);
    expect(visualOrder([0, 0])).toEqual([0, 1]);
    expect(visualOrder([0, 1, 1, 0, 2, 2])).toEqual([0, 2, 1, 3, 4, 5]);
  });

  it("lays digits inside Arabic out left to right, to the left of the Arabic before them", async (ctx) => {
    const catalogue = new FontCatalogue([], true);
    if (!(await catalogue.list()).some((f) => f.postScriptName === "DejaVuSans")) return ctx.skip("DejaVu Sans is not installed (Debian: fonts-dejavu-core)");
    const spec = (text: string): TextSpec => ({ text, font: "DejaVuSans", size: 20, color: [0, 0, 0, 255], position: { x: 400, y: 40 }, alignment: "right", tracking: 0, antiAlias: "smooth" });
    const digits = (await layoutText(spec("123"), 72, catalogue)).glyphs.map((g) => g.glyph);
    const arabic = new Set((await layoutText(spec("مرحبا"), 72, catalogue)).glyphs.map((g) => g.glyph));
    const mixed = (await layoutText(spec("مرحبا 123"), 72, catalogue)).glyphs;
    const at = digits.map((id) => mixed.find((g) => g.glyph === id)!.x);
    expect(at[0]).toBeLessThan(at[1]!);
    expect(at[1]).toBeLessThan(at[2]!);
    const arabicLeft = Math.min(...mixed.filter((g) => arabic.has(g.glyph)).map((g) => g.x));
    expect(at[2]).toBeLessThan(arabicLeft);
  });
});

describe("line breaks in scripts without spaces", () => {
  it("breaks Thai between the words ICU's dictionary finds, never inside one", () => {
    const text = "สวัสดีครับยินดีต้อนรับ";
    const breaks = breakOpportunities(text, "th");
    const words = [...new Intl.Segmenter("th", { granularity: "word" }).segment(text)].map((s) => s.index).filter((i) => i > 0);
    expect(words.length).toBeGreaterThan(1);
    expect([...breaks].sort((a, b) => a - b)).toEqual(words);
  });

  it("wraps Thai in a box between words: the second line starts with the word that did not fit", async (ctx) => {
    const catalogue = new FontCatalogue([], true);
    if (!(await catalogue.list()).some((f) => f.postScriptName === "NotoSansThai-Regular")) return ctx.skip("Noto Sans Thai is not installed (Debian: fonts-noto-core)");
    const spec = (text: string, box?: { x: number; y: number; width: number; height: number }): TextSpec => ({
      text, font: "NotoSansThai-Regular", size: 20, color: [0, 0, 0, 255], ...(box === undefined ? { position: { x: 0, y: 40 } } : { box }), alignment: "left", tracking: 0, antiAlias: "smooth",
    });
    // Where a word's first glyph starts when it follows `before`: the width of `before`.
    const widthBefore = async (before: string, word: string): Promise<number> => {
      const own = (await layoutText(spec(word), 72, catalogue)).glyphs.map((g) => g.glyph);
      const joined = (await layoutText(spec(before + word), 72, catalogue)).glyphs;
      return joined.find((_, i) => i > 0 && joined.slice(i, i + own.length).every((h, k) => h.glyph === own[k]))!.x;
    };
    const [first, second, third] = ["สวัสดีครับ", "ยินดี", "ต้อนรับ"];
    const next = (await layoutText(spec(second), 72, catalogue)).glyphs.map((g) => g.glyph);
    // The box has room for the first word and half the second: the second goes whole to the next line.
    const width = (await widthBefore(first, second)) + (await widthBefore(second, third)) / 2;
    const wrapped = (await layoutText(spec(first + second + third, { x: 0, y: 0, width, height: 200 }), 72, catalogue)).glyphs;
    const rows = [...new Set(wrapped.map((g) => g.y))].sort((a, b) => a - b);
    expect(rows.length).toBeGreaterThan(1);
    expect(wrapped.filter((g) => g.y === rows[1]).slice(0, next.length).map((g) => g.glyph)).toEqual(next);
  });

  it("breaks Chinese and Japanese between any two characters, but not before 。or small kana, nor after an opening bracket; Latin after spaces", () => {
    const text = "東京「都」にっ行く。";
    const breaks = breakOpportunities(text, "ja");
    expect(breaks.has(1)).toBe(true);
    expect(breaks.has(text.indexOf("。"))).toBe(false);
    expect(breaks.has(text.indexOf("っ"))).toBe(false);
    expect(breaks.has(text.indexOf("「") + 1)).toBe(false);
    expect(breaks.has(text.indexOf("」"))).toBe(false);
    expect([...breakOpportunities("Latin words only", "en")]).toEqual([6, 12]);
  });
});
