/*
 * Text layers in the Photoshop DOM stub, after the Photoshop JavaScript Reference (mirrored at
 * https://theiviaxx.github.io/photoshop-docs/Photoshop/<Class>/<member>.html):
 * - ArtLayer.kind: "Settable only for an empty layer": setting LayerKind.TEXT turns a new art layer into a text
 *   layer; ArtLayer.textItem is "valid only when kind is text".
 * - TextItem: contents (lines broken by "\r"), font (the PostScript name), size (a UnitValue, points by default),
 *   color (SolidColor), kind (TextType.POINTTEXT or PARAGRAPHTEXT), position (the origin: the first baseline's start
 *   for point text, the box's top-left for paragraph text), width and height (paragraph text only), justification
 *   (Justification), useAutoLeading and leading (a UnitValue, points), tracking (thousandths of an em),
 *   baselineShift (a UnitValue, points, up) and antiAliasMethod (AntiAlias).
 * - Application.fonts: TextFonts of TextFont, each with family, name, postScriptName and style.
 * The stub draws no glyphs: a text layer's bounds stand in for them (a line is 0.6 em a character wide, its ascent
 * 0.8 em and descent 0.2 em above and below its baseline; a paragraph fills its box), in the text's colour.
 */
import type { FakeDocument } from "../model.js";
import type { FakeLayer, FakeText } from "../layers.js";
import { StubUnitValue } from "./units.js";

type Enumerator = { toString(): string };
type Enumeration = Record<string, Enumerator>;

/** The fonts the stub's Application.fonts lists (DejaVu, as test machines have it). */
export const STUB_FONTS = [
  { family: "DejaVu Sans", style: "Book", postScriptName: "DejaVuSans", name: "DejaVu Sans" },
  { family: "DejaVu Sans", style: "Bold", postScriptName: "DejaVuSans-Bold", name: "DejaVu Sans Bold" },
  { family: "DejaVu Serif", style: "Book", postScriptName: "DejaVuSerif", name: "DejaVu Serif" },
  { family: "DejaVu Sans Mono", style: "Book", postScriptName: "DejaVuSansMono", name: "DejaVu Sans Mono" },
];

export interface TextStub {
  fail(message: string): Error;
  change(call: string): void;
  /** A length in pixels (a UnitValue or a number in the ruler units). */
  px(d: FakeDocument, v: unknown): number;
  arr(items: readonly unknown[]): unknown[];
  strict<T extends object>(label: string, target: T): T;
  enums: Record<"TextType" | "Justification" | "AntiAlias", Enumeration>;
  SolidColor: new () => { rgb: { hexValue: string } };
}

/** A new text layer's TextItem, as Photoshop starts one (Layer > New > Text is empty, 12 pt, black, left). */
export function newText(): FakeText {
  return { contents: "", font: "DejaVuSans", size: 12, color: "000000", kind: "POINTTEXT", position: [0, 0], width: 0, height: 0, justification: "LEFT", useAutoLeading: true, leading: 14.4, tracking: 0, baselineShift: 0, antiAlias: "SMOOTH" };
}

/** The bounds standing in for a text layer's glyphs. */
function layout(d: FakeDocument, l: FakeLayer): void {
  const t = l.text!;
  const em = (t.size * (d.resolution ?? 72)) / 72;
  const [r, g, b] = [0, 2, 4].map((i) => Number.parseInt(t.color.slice(i, i + 2), 16)) as [number, number, number];
  l.color = [r, g, b, 255];
  if (t.kind === "PARAGRAPHTEXT") {
    [l.left, l.top, l.right, l.bottom] = [t.position[0], t.position[1], t.position[0] + t.width, t.position[1] + t.height];
    return;
  }
  const lines = t.contents.split("\r");
  const width = Math.max(...lines.map((line) => [...line].length)) * 0.6 * em;
  const leading = t.useAutoLeading ? 1.2 * em : (t.leading * (d.resolution ?? 72)) / 72;
  const along = t.justification === "CENTER" ? width / 2 : t.justification === "RIGHT" ? width : 0;
  l.left = Math.round(t.position[0] - along);
  l.right = Math.round(t.position[0] - along + width);
  l.top = Math.round(t.position[1] - 0.8 * em);
  l.bottom = Math.round(t.position[1] + 0.2 * em + (lines.length - 1) * leading);
}

/** ArtLayer.textItem of a text layer: every setting recorded as the call the script made. */
export function textItem(s: TextStub, d: FakeDocument, l: FakeLayer): object {
  // A text layer of a sample or an opened file reads as its name, its first baseline at its bottom-left corner;
  // reading changes nothing, the first setting keeps it.
  const t = l.text ?? { ...newText(), contents: l.name, position: [l.left, l.bottom] };
  const { TextType, Justification, AntiAlias } = s.enums;
  const set = (prop: string, shown: string, apply: () => void): void => {
    l.text = t;
    apply();
    layout(d, l);
    d.dirty = true;
    s.change(`${l.id}.textItem.${prop} = ${shown}`);
  };
  const points = (v: unknown, prop: string): number => {
    if (v instanceof StubUnitValue) return v.as("pt");
    if (typeof v === "number") return v;
    throw s.fail(`TextItem.${prop} takes a UnitValue or a number`);
  };
  const paragraphOnly = (prop: string): void => {
    // TextItem.width / height: "valid only when kind = TextType.PARAGRAPHTEXT".
    if (t.kind !== "PARAGRAPHTEXT") throw new Error(`General Photoshop error occurred. TextItem.${prop} is valid only for paragraph text`);
  };
  return s.strict("TextItem", {
    typename: "TextItem",
    get contents() { return t.contents; },
    set contents(v: string) { set("contents", JSON.stringify(String(v)), () => { t.contents = String(v); }); },
    get font() { return t.font; },
    set font(v: string) { set("font", JSON.stringify(String(v)), () => { t.font = String(v); }); },
    get size() { return new StubUnitValue(t.size, "pt"); },
    set size(v: unknown) { const pt = points(v, "size"); set("size", `${pt} pt`, () => { t.size = pt; }); },
    get color() { const c = new s.SolidColor(); c.rgb.hexValue = t.color; return c; },
    set color(v: { rgb: { hexValue: string } }) { set("color", `#${v.rgb.hexValue}`, () => { t.color = v.rgb.hexValue; }); },
    get kind() { return TextType[t.kind]!; },
    set kind(v: Enumerator) {
      const kind = String(v).replace("TextType.", "");
      if (kind !== "POINTTEXT" && kind !== "PARAGRAPHTEXT") throw s.fail(`TextItem.kind = ${String(v)}`);
      set("kind", String(v), () => { t.kind = kind; });
    },
    get position() { return s.arr([new StubUnitValue(t.position[0], "px"), new StubUnitValue(t.position[1], "px")]); },
    set position(v: ArrayLike<unknown>) {
      const at: [number, number] = [s.px(d, v[0]), s.px(d, v[1])];
      set("position", `[${at.join(", ")}] px`, () => { t.position = at; });
    },
    get width() { paragraphOnly("width"); return new StubUnitValue(t.width, "px"); },
    set width(v: unknown) { paragraphOnly("width"); const w = s.px(d, v); set("width", `${w} px`, () => { t.width = w; }); },
    get height() { paragraphOnly("height"); return new StubUnitValue(t.height, "px"); },
    set height(v: unknown) { paragraphOnly("height"); const h = s.px(d, v); set("height", `${h} px`, () => { t.height = h; }); },
    get justification() { return Justification[t.justification]!; },
    set justification(v: Enumerator) {
      const name = String(v).replace("Justification.", "");
      if (Justification[name] === undefined) throw s.fail(`TextItem.justification = ${String(v)}`);
      set("justification", String(v), () => { t.justification = name; });
    },
    get useAutoLeading() { return t.useAutoLeading; },
    set useAutoLeading(v: boolean) { set("useAutoLeading", String(v === true), () => { t.useAutoLeading = v === true; }); },
    get leading() { return new StubUnitValue(t.leading, "pt"); },
    set leading(v: unknown) { const pt = points(v, "leading"); set("leading", `${pt} pt`, () => { t.leading = pt; }); },
    get tracking() { return t.tracking; },
    set tracking(v: number) { set("tracking", String(v), () => { t.tracking = Number(v); }); },
    get baselineShift() { return new StubUnitValue(t.baselineShift, "pt"); },
    set baselineShift(v: unknown) { const pt = points(v, "baselineShift"); set("baselineShift", `${pt} pt`, () => { t.baselineShift = pt; }); },
    get antiAliasMethod() { return AntiAlias[t.antiAlias]!; },
    set antiAliasMethod(v: Enumerator) {
      const name = String(v).replace("AntiAlias.", "");
      if (AntiAlias[name] === undefined) throw s.fail(`TextItem.antiAliasMethod = ${String(v)}`);
      set("antiAliasMethod", String(v), () => { t.antiAlias = name; });
    },
  });
}
