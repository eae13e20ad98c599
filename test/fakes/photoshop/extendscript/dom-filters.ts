/*
 * The ArtLayer adjustments and filters `edit.filter` uses, added to the stub's pixel layers (dom.ts). Each member
 * checks its arguments against the ranges the Photoshop JavaScript Reference gives (mirrored at
 * https://theiviaxx.github.io/photoshop-docs/Photoshop/ArtLayer/<member>.html) and records the call with its
 * arguments (`effects.calls`), as `<layerId>.<member>(…)`, with `[Red]` etc. after the name when only some colour
 * channels are active (adjustLevels and adjustCurves change the active channels only). The model's layers are
 * solid colours, so the pixels are not recomputed: what the tests check is the calls and the history states.
 */
import type { FakeDocument } from "../model.js";
import type { FakeLayer } from "../layers.js";
import { activeChannelsOf, type EditStub } from "./dom-edits.js";

type Enumerator = { toString(): string };

const illegal = (i: number, what: string): Error => new Error(`Illegal argument - argument ${i}: ${what}`);
const within = (i: number, v: unknown, lo: number, hi: number, what: string): number => {
  const n = Number(v);
  if (typeof v !== "number" || !(n >= lo && n <= hi)) throw illegal(i, `${what} ${String(v)} is outside ${lo}-${hi}`);
  return n;
};
const list = (i: number, v: unknown, length: number, lo: number, hi: number, what: string): number[] => {
  const values = Array.from(v as ArrayLike<unknown>);
  if (values.length !== length) throw illegal(i, `${what} needs ${length} values`);
  return values.map((x) => within(i, x, lo, hi, what));
};
const bool = (i: number, v: unknown): boolean => {
  if (typeof v !== "boolean") throw illegal(i, `${String(v)} is not a boolean`);
  return v;
};
const name = (e: unknown): string => String(e).replace(/^\w+\./, "");
const show = (v: unknown): string => JSON.stringify(v);

/** ArtLayer adjustment and filter members (pixel layers only: a LayerSet has none). */
export function layerFilterMembers(s: EditStub, d: FakeDocument, l: FakeLayer): object {
  const { NoiseDistribution, AdjustmentReference } = s.enums;
  const record = (member: string, args: unknown[], channels = false): void => {
    // The stub applies filters to the active layer only (the scripts make the layer active first).
    if (d.active[0] !== l.id) throw s.fail(`${member} on layer ${l.id}, which is not the active layer`);
    if (l.kind !== "pixel" && l.kind !== "background") throw new Error("General Photoshop error occurred. The command is not currently available.");
    const active = activeChannelsOf(d);
    const which = channels && active.length < 3 ? `[${active.join(",")}]` : "";
    d.dirty = true;
    s.change(`${l.id}.${member}${which}(${args.map(show).join(", ")})`);
  };
  return {
    // adjustBrightnessContrast(brightness, contrast): each -100 to 100.
    adjustBrightnessContrast(brightness: unknown, contrast: unknown) {
      record("adjustBrightnessContrast", [within(1, brightness, -100, 100, "brightness"), within(2, contrast, -100, 100, "contrast")]);
    },
    // adjustLevels(inputRangeStart 0–253, inputRangeEnd 2–255 (at least start + 2), inputRangeGamma 0.1–9.99, outputRangeStart, outputRangeEnd 0–255).
    adjustLevels(inStart: unknown, inEnd: unknown, gamma: unknown, outStart: unknown, outEnd: unknown) {
      const a = within(1, inStart, 0, 253, "inputRangeStart");
      const b = within(2, inEnd, 2, 255, "inputRangeEnd");
      if (b < a + 2) throw illegal(2, "inputRangeEnd must be at least inputRangeStart + 2");
      record("adjustLevels", [a, b, within(3, gamma, 0.1, 9.99, "inputRangeGamma"), within(4, outStart, 0, 255, "outputRangeStart"), within(5, outEnd, 0, 255, "outputRangeEnd")], true);
    },
    // adjustCurves(curveShape): "up to fourteen points", each [input, output] 0–255.
    adjustCurves(shape: unknown) {
      const points = Array.from(shape as ArrayLike<unknown>).map((p) => list(1, p, 2, 0, 255, "curve point"));
      if (points.length < 2 || points.length > 14) throw illegal(1, `a curve of ${points.length} points (2-14)`);
      record("adjustCurves", [points], true);
    },
    // adjustColorBalance(shadows, midtones, highlights, preserveLuminosity): each range [cyan-red, magenta-green, yellow-blue], -100 to 100.
    adjustColorBalance(shadows: unknown, midtones: unknown, highlights: unknown, preserve: unknown) {
      record("adjustColorBalance", [list(1, shadows, 3, -100, 100, "shadows"), list(2, midtones, 3, -100, 100, "midtones"), list(3, highlights, 3, -100, 100, "highlights"), bool(4, preserve)]);
    },
    // photoFilter(fillColor, density 1–100, preserveLuminosity).
    photoFilter(color: { rgb: { hexValue: string; red: number; green: number; blue: number } }, density: unknown, preserve: unknown) {
      const hex = [color.rgb.red, color.rgb.green, color.rgb.blue].map((v) => v.toString(16).padStart(2, "0")).join("");
      record("photoFilter", [`#${hex}`, within(2, density, 1, 100, "density"), bool(3, preserve)]);
    },
    // mixChannels(outputChannels, monochrome): per output channel [red, green, blue, constant], -200 to 200; one row when monochrome.
    mixChannels(rows: unknown, monochrome: unknown) {
      const mono = bool(2, monochrome);
      const table = Array.from(rows as ArrayLike<unknown>).map((r) => list(1, r, 4, -200, 200, "channel row"));
      if (table.length !== (mono ? 1 : 3)) throw illegal(1, `${table.length} rows for ${mono ? "monochrome" : "RGB"}`);
      record("mixChannels", [table, mono]);
    },
    invert() { record("invert", []); },
    // posterize(levels): 2–255.
    posterize(levels: unknown) { record("posterize", [within(1, levels, 2, 255, "levels")]); },
    // threshold(level): 1–255.
    threshold(level: unknown) { record("threshold", [within(1, level, 1, 255, "level")]); },
    // selectiveColor(selectionMethod, reds, yellows, greens, cyans, blues, magentas, whites, neutrals, blacks): each [cyan, magenta, yellow, black], -100 to 100.
    selectiveColor(method: Enumerator, ...classes: unknown[]) {
      if (!AdjustmentReference[name(method)]) throw illegal(1, String(method));
      if (classes.length !== 9) throw illegal(2, `${classes.length} colour classes (9)`);
      record("selectiveColor", [name(method), ...classes.map((c, i) => list(i + 2, c, 4, -100, 100, "inks"))]);
    },
    // applyGaussianBlur(radius): 0.1–250 pixels.
    applyGaussianBlur(radius: unknown) { record("applyGaussianBlur", [within(1, radius, 0.1, 250, "radius")]); },
    // applyMotionBlur(angle, radius): angle -360–360 degrees, radius 1–999 pixels.
    applyMotionBlur(angle: unknown, radius: unknown) { record("applyMotionBlur", [within(1, angle, -360, 360, "angle"), within(2, radius, 1, 999, "radius")]); },
    // applyUnSharpMask(amount, radius, threshold): amount 1–500 %, radius 0.1–250 pixels, threshold 0–255 levels.
    applyUnSharpMask(amount: unknown, radius: unknown, threshold: unknown) {
      record("applyUnSharpMask", [within(1, amount, 1, 500, "amount"), within(2, radius, 0.1, 250, "radius"), within(3, threshold, 0, 255, "threshold")]);
    },
    applySharpen() { record("applySharpen", []); },
    // applyAddNoise(amount, distribution, monochromatic): amount 0.1–400 %, NoiseDistribution GAUSSIAN or UNIFORM.
    applyAddNoise(amount: unknown, distribution: Enumerator, monochromatic: unknown) {
      if (!NoiseDistribution[name(distribution)]) throw illegal(2, String(distribution));
      record("applyAddNoise", [within(1, amount, 0.1, 400, "amount"), name(distribution), bool(3, monochromatic)]);
    },
    // applyMedianNoise(radius): 1–100 pixels.
    applyMedianNoise(radius: unknown) { record("applyMedianNoise", [within(1, radius, 1, 100, "radius")]); },
    // applyHighPass(radius): 0.1–250 pixels.
    applyHighPass(radius: unknown) { record("applyHighPass", [within(1, radius, 0.1, 250, "radius")]); },
  };
}
