/**
 * The embedded editor's text engine as the subject: its shaping against HarfBuzz's own `hb-shape` (glyph ids and
 * advances, Arabic and Devanagari in Noto fonts), its text record as ag-psd reads a saved file back, and a PSD text
 * layer opened from a file drawn again. Fonts and `hb-shape` come from Debian packages (`fonts-noto-core`,
 * `fonts-dejavu-core`, `libharfbuzz-bin`); a case whose package is absent is skipped and says which.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readPsd } from "ag-psd";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureCanvasFactory } from "../../../src/hosts/embedded/psd.js";
import { breakOpportunities } from "../../../src/hosts/embedded/text/breaks.js";
import { FontCatalogue } from "../../../src/hosts/embedded/text/catalogue.js";
import { layoutText } from "../../../src/hosts/embedded/text/layout.js";
import { loadFace, shapeRun } from "../../../src/hosts/embedded/text/shaper.js";
import type { HostLayer } from "../../../src/protocol/index.js";
import { startOnSharedEditor } from "../../helpers/shared-editor.js";

const NOTO = "/usr/share/fonts/truetype/noto";
const hasHbShape = (() => {
  try {
    execFileSync("hb-shape", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** What `hb-shape` makes of `text`: glyph ids, clusters and advances in font units. */
function hbShape(file: string, text: string, options: { direction: string; script: string; language: string }): Array<{ g: number; cl: number; ax: number; ay: number; dx: number; dy: number }> {
  const out = execFileSync(
    "hb-shape",
    ["--output-format=json", "--no-glyph-names", `--direction=${options.direction}`, `--script=${options.script}`, `--language=${options.language}`, file, text],
    { encoding: "utf8" },
  );
  return JSON.parse(out.trim());
}

const SAMPLES = [
  { name: "Arabic", font: "NotoSansArabic-Regular", file: `${NOTO}/NotoSansArabic-Regular.ttf`, text: "مرحبا بالعالم، كيف حالك؟", direction: "rtl", script: "Arab", language: "ar" },
  { name: "Devanagari", font: "NotoSansDevanagari-Regular", file: `${NOTO}/NotoSansDevanagari-Regular.ttf`, text: "नमस्ते दुनिया, क्षत्रिय द्विज", direction: "ltr", script: "Deva", language: "hi" },
] as const;

describe("shaping equals hb-shape's", () => {
  const catalogue = new FontCatalogue();
  for (const sample of SAMPLES) {
    const missing = !existsSync(sample.file) ? `${sample.file} is absent (Debian: fonts-noto-core)` : !hasHbShape ? "hb-shape is absent (Debian: libharfbuzz-bin)" : undefined;
    it.skipIf(missing !== undefined)(`${sample.name} in ${sample.font}: the same glyph ids, clusters and advances${missing ? ` (skipped: ${missing})` : ""}`, async () => {
      const reference = hbShape(sample.file, sample.text, { direction: sample.direction, script: sample.script, language: sample.language });
      const face = await loadFace(await catalogue.find(sample.font));
      const ours = shapeRun(face, sample.text, { direction: sample.direction, script: sample.script, language: sample.language }, { paragraph: sample.text, start: 0 });
      expect(ours.glyphs.map((g) => [g.glyph, g.cluster, g.xAdvance, g.yAdvance, g.xOffset, g.yOffset])).toEqual(reference.map((g) => [g.g, g.cl, g.ax, g.ay, g.dx, g.dy]));
      // The engine lays out exactly those glyphs, in that order (one run: the font has every character).
      const layout = await layoutText(
        { text: sample.text, font: sample.font, size: 20, color: [0, 0, 0, 255], position: { x: 0, y: 30 }, alignment: "left", tracking: 0, antiAlias: "smooth", script: sample.script, language: sample.language },
        72,
        catalogue,
      );
      expect(layout.fallbackFonts).toEqual([]);
      expect(layout.glyphs.map((g) => g.glyph)).toEqual(reference.map((g) => g.g));
    });
  }

  it.skipIf(!existsSync(`${NOTO}/NotoSansDevanagari-Regular.ttf`))("a character the font lacks is drawn with a fallback face, named", async () => {
    const layout = await layoutText(
      { text: "Hello नमस्ते", font: "DejaVu Sans", size: 20, color: [0, 0, 0, 255], position: { x: 0, y: 30 }, alignment: "left", tracking: 0, antiAlias: "smooth" },
      72,
      catalogue,
    );
    expect(layout.fallbackFonts).toEqual(["NotoSansDevanagari-Regular"]);
  });
});

describe("mixed directions and line breaks", () => {
  const catalogue = new FontCatalogue();
  const spec = { size: 20, color: [0, 0, 0, 255] as [number, number, number, number], alignment: "left" as const, tracking: 0, antiAlias: "smooth" as const };

  /** The glyph id `font` draws `char` with, alone. */
  async function glyphOf(font: string, char: string): Promise<number> {
    const face = await loadFace(await catalogue.find(font));
    return shapeRun(face, char, { direction: "ltr" }).glyphs[0]!.glyph;
  }

  /** The x of the one glyph of `char` (drawn in `font`) in `layout`. */
  async function xOf(layout: { glyphs: ReadonlyArray<{ glyph: number; x: number }> }, font: string, char: string): Promise<number> {
    const id = await glyphOf(font, char);
    const placed = layout.glyphs.filter((g) => g.glyph === id);
    expect(placed, char).toHaveLength(1);
    return placed[0]!.x;
  }

  /** The glyphs of `layout` that are none of `chars` in `font`: the Arabic ones here. */
  async function others(layout: { glyphs: ReadonlyArray<{ glyph: number; x: number }> }, font: string, chars: string): Promise<number[]> {
    const known = new Set(await Promise.all([...chars].map((c) => glyphOf(font, c))));
    return layout.glyphs.filter((g) => !known.has(g.glyph)).map((g) => g.x);
  }

  it("numbers and a Latin word inside Arabic read left to right, the Arabic right to left around them", async () => {
    // Logical order: an Arabic word, a number, a Latin word. Shown from the left: "world", "123", then the Arabic
    // word on the right.
    const font = "DejaVu Sans";
    const layout = await layoutText({ ...spec, text: "مرحبا 123 world", font, position: { x: 0, y: 30 } }, 72, catalogue);
    const [w, d, one, two, three] = await Promise.all(["w", "d", "1", "2", "3"].map((c) => xOf(layout, font, c)));
    const arabic = await others(layout, font, "123 world");
    expect(arabic.length).toBeGreaterThan(0);
    expect(w!).toBeLessThan(d!);
    expect(d!).toBeLessThan(one!);
    expect(one!).toBeLessThan(two!);
    expect(two!).toBeLessThan(three!);
    expect(three!).toBeLessThan(Math.min(...arabic));
  });

  it("an Arabic word inside English stays where it is written", async () => {
    const font = "DejaVu Sans";
    const layout = await layoutText({ ...spec, text: "say مرحبا now", font, position: { x: 0, y: 30 } }, 72, catalogue);
    const [y, n] = await Promise.all(["y", "n"].map((c) => xOf(layout, font, c)));
    const arabic = await others(layout, font, "say now");
    expect(y!).toBeLessThan(Math.min(...arabic));
    expect(Math.max(...arabic)).toBeLessThan(n!);
  });

  it("lines break at the Unicode line break opportunities: after spaces and hyphens, between ideographs but never before closing punctuation, and between Thai words", () => {
    expect([...breakOpportunities("hello world-wide (x)")]).toEqual([6, 12, 17]);
    const japanese = "東京都は日本の首都です。人口は多い。";
    const cjk = breakOpportunities(japanese);
    expect(cjk.has(japanese.indexOf("。"))).toBe(false);
    expect(cjk.has(japanese.indexOf("。") + 1)).toBe(true);
    expect(cjk.has(1)).toBe(true);
    // สวัสดี ครับ ผม ชื่อ สมชาย: five words and no spaces.
    expect([...breakOpportunities("สวัสดีครับผมชื่อสมชาย")].sort((a, b) => a - b)).toEqual([6, 10, 12, 16]);
  });

  it.skipIf(!existsSync(`${NOTO}/NotoSansThai-Regular.ttf`))("Thai in a box wraps between words, never inside one", async () => {
    const words = ["สวัสดี", "ครับ", "ผม", "ชื่อ", "สมชาย"];
    const text = words.join("");
    const font = "Noto Sans Thai";
    const whole = await layoutText({ ...spec, text, font, position: { x: 0, y: 30 } }, 72, catalogue);
    const right = Math.max(...whole.glyphs.map((g) => g.x));
    const layout = await layoutText({ ...spec, text, font, box: { x: 0, y: 0, width: right * 0.55, height: 400 } }, 72, catalogue);
    expect(layout.lines).toBeGreaterThan(1);
    // Each line starts with the first letter of a word.
    const firsts = new Set(await Promise.all(words.map((w) => glyphOf(font, w[0]!))));
    // Baselines are the auto leading apart (120 % of 20 px); marks sit a little off theirs.
    const top = Math.min(...layout.glyphs.map((g) => g.y));
    const lineOf = (y: number) => Math.round((y - top) / 24);
    const lines = [...new Set(layout.glyphs.map((g) => lineOf(g.y)))];
    expect(lines).toHaveLength(layout.lines);
    for (const index of lines) {
      const first = layout.glyphs.filter((g) => lineOf(g.y) === index).reduce((a, b) => (b.x < a.x ? b : a));
      expect(firsts.has(first.glyph), `line ${index}`).toBe(true);
    }
  });
});

describe("text layers in PSD files", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "bridge-text-psd-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("a text layer saved to PSD reads back in ag-psd as a text layer with the same text, font, size and colour", async () => {
    const harness = await startOnSharedEditor();
    const client = await harness.connect();
    const made = (await client.send("layer:create", { kind: "text", text: "Price: 9,99 €\nToday", font: "DejaVuSans-Bold", size: 30, color: "#336699" })).result as HostLayer;
    expect(made.kind).toBe("text");
    const path = join(dir, "text.psd");
    const saved = await client.send("document:save", { savePath: path, allowLossy: true });
    expect(saved.ok, JSON.stringify(saved.error)).toBe(true);
    ensureCanvasFactory();
    const psd = readPsd(await readFile(path), { skipCompositeImageData: true, skipThumbnail: true, useImageData: true });
    const walk = (layers: typeof psd.children): NonNullable<typeof psd.children> => (layers ?? []).flatMap((l) => [l, ...walk(l.children)]);
    const layer = walk(psd.children).find((l) => l.name === made.name);
    expect(layer?.text).toBeDefined();
    const resolution = psd.imageResources?.resolutionInfo?.horizontalResolution ?? 72;
    expect(layer!.text!.text.replace(/\r/g, "\n")).toBe("Price: 9,99 €\nToday");
    expect(layer!.text!.style?.font?.name).toBe("DejaVuSans-Bold");
    expect(((layer!.text!.style?.fontSize ?? 0) * 72) / resolution).toBeCloseTo(30, 3);
    expect(layer!.text!.style?.fillColor).toMatchObject({ r: 0x33, g: 0x66, b: 0x99 });
    // The pixels saved are the engine's.
    expect([layer!.left, layer!.top, layer!.right, layer!.bottom]).toEqual([made.bounds.left, made.bounds.top, made.bounds.right, made.bounds.bottom]);
    // Opened again, it is a text layer whose settings read back from the record.
    const reopened = await client.send("document:open", { path });
    expect(reopened.ok, JSON.stringify(reopened.error)).toBe(true);
    const layers = (await client.send("document:layers", { documentId: (reopened.result as { id: number }).id })).result as HostLayer[];
    const all = (list: readonly HostLayer[]): HostLayer[] => list.flatMap((l) => [l, ...all(l.children ?? [])]);
    const back = all(layers).find((l) => l.name === made.name);
    expect(back?.text).toMatchObject({ text: "Price: 9,99 €\nToday", font: "DejaVuSans-Bold", size: 30, color: "#336699" });
  });
  it("each anti-aliasing method draws its own way, and it and the baseline shift go into the PSD record and back", async () => {
    const harness = await startOnSharedEditor();
    const client = await harness.connect();
    const created = await client.send("document:create", { width: 200, height: 60 });
    expect(created.ok, JSON.stringify(created.error)).toBe(true);
    const documentId = (created.result as { id: number }).id;
    /** A text layer drawn with `settings`: its answer, and its alpha values where not 0. */
    const draw = async (settings: Record<string, unknown>): Promise<{ layer: HostLayer; alpha: number[] }> => {
      const answer = await client.send("layer:create", { documentId, kind: "text", text: "Hamburgefonts", font: "DejaVuSans", size: 13, position: { x: 10, y: 40 }, ...settings });
      expect(answer.ok, JSON.stringify(answer.error)).toBe(true);
      const layer = answer.result as HostLayer;
      const png = (await client.send("image:exportLayer", { documentId, layerId: layer.id, format: "png" })).result as { data: string };
      const { data } = await sharp(Buffer.from(png.data.split(",")[1]!, "base64")).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      return { layer, alpha: [...data.filter((_, i) => i % 4 === 3)].filter((a) => a > 0) };
    };
    const ink = (alpha: readonly number[]): number => alpha.reduce((sum, a) => sum + a, 0);
    const partial = (alpha: readonly number[]): number => alpha.filter((a) => a < 255).length;
    const drawn = Object.fromEntries(await Promise.all(["none", "sharp", "crisp", "strong", "smooth"].map(async (m) => [m, await draw({ antiAlias: m })] as const)));
    for (const [method, { layer }] of Object.entries(drawn)) expect(layer.text?.antiAlias).toBe(method);
    expect((await draw({ antiAlias: true })).layer.text?.antiAlias).toBe("smooth");
    expect((await draw({ antiAlias: false })).layer.text?.antiAlias).toBe("none");
    // None has hard edges; sharp is harder than crisp and smooth; strong is heavier than smooth, which is heavier
    // than the unwidened crisp.
    expect(partial(drawn.none!.alpha)).toBe(0);
    expect(partial(drawn.sharp!.alpha)).toBeLessThan(partial(drawn.crisp!.alpha));
    expect(partial(drawn.sharp!.alpha)).toBeLessThan(partial(drawn.smooth!.alpha));
    expect(ink(drawn.strong!.alpha)).toBeGreaterThan(ink(drawn.smooth!.alpha));
    expect(ink(drawn.smooth!.alpha)).toBeGreaterThan(ink(drawn.crisp!.alpha));

    // A baseline shift of 6 pt at 72 ppi lifts the glyphs 6 px.
    const plain = await draw({ antiAlias: "crisp" });
    const shifted = await draw({ antiAlias: "crisp", baselineShift: 6 });
    expect(shifted.layer.bounds.bottom).toBe(plain.layer.bounds.bottom - 6);
    expect(shifted.layer.text).toMatchObject({ baselineShift: 6, position: { x: 10, y: 40 } });
    const strong = await draw({ antiAlias: "strong", baselineShift: -2.5, name: "strong shifted" });
    const path = join(dir, "methods.psd");
    const saved = await client.send("document:save", { documentId, savePath: path, allowLossy: true });
    expect(saved.ok, JSON.stringify(saved.error)).toBe(true);
    ensureCanvasFactory();
    const psd = readPsd(await readFile(path), { skipCompositeImageData: true, skipLayerImageData: true, skipThumbnail: true, useImageData: true });
    const record = (psd.children ?? []).find((l) => l.name === "strong shifted")?.text;
    expect(record).toMatchObject({ antiAlias: "strong", style: { baselineShift: -2.5 } });
    const reopened = await client.send("document:open", { path });
    expect(reopened.ok, JSON.stringify(reopened.error)).toBe(true);
    const layers = (await client.send("document:layers", { documentId: (reopened.result as { id: number }).id })).result as HostLayer[];
    expect(layers.find((l) => l.name === "strong shifted")?.text).toMatchObject({ antiAlias: "strong", baselineShift: -2.5 });
    expect(strong.layer.text).toMatchObject({ antiAlias: "strong", baselineShift: -2.5 });
  });
});
