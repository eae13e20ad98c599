/*
 * ExtendScript's UnitValue and Photoshop's ruler units. Rules ("JavaScript Tools Guide CC", "Specifying
 * measurement values"; https://theiviaxx.github.io/photoshop-docs/Photoshop/Preferences/rulerUnits.html):
 * - `UnitValue(v, unit)` works with or without `new`; `as(unit)` converts; pixels convert through
 *   `UnitValue.baseUnit`, 1/72 inch unless a script sets it: not the document's resolution.
 * - Photoshop reports lengths (document size, bounds) in the ruler units, and reads plain numbers given to
 *   `Selection.select` and `ArtLayer.translate` in them; `app.preferences.rulerUnits` is the user's setting,
 *   inches on a fresh install.
 */

const PER_INCH: Record<string, number> = { in: 1, inch: 1, inches: 1, cm: 2.54, mm: 25.4, pt: 72, pc: 6 };
const ALIASES: Record<string, string> = { px: "px", pixels: "px", pixel: "px", in: "in", inch: "in", inches: "in", cm: "cm", mm: "mm", pt: "pt", pc: "pc" };

export class StubUnitValue {
  readonly value: number;
  readonly type: string;
  constructor(value: number | string, unit?: string) {
    if (typeof value === "string") {
      const m = /^\s*(-?[\d.]+)\s*(\w+)\s*$/.exec(value);
      if (!m) throw new Error(`UnitValue: cannot read "${value}"`);
      this.value = Number(m[1]);
      this.type = canonical(m[2]!);
    } else {
      this.value = value;
      this.type = canonical(unit ?? "px");
    }
  }
  /** The value in `unit`; pixels at 72 per inch (UnitValue.baseUnit's default). */
  as(unit: string): number {
    const to = canonical(unit);
    const inches = this.type === "px" ? this.value / 72 : this.value / PER_INCH[this.type]!;
    return to === "px" ? inches * 72 : inches * PER_INCH[to]!;
  }
  toString(): string {
    return `${this.value} ${this.type}`;
  }
}

function canonical(unit: string): string {
  const u = ALIASES[unit.toLowerCase()];
  if (!u) throw new Error(`UnitValue: unknown unit "${unit}"`);
  return u;
}

/** `UnitValue` as scripts see it: a constructor that may be called without `new`. */
export function unitValueFunction(): (value: number | string, unit?: string) => StubUnitValue {
  return function UnitValue(value: number | string, unit?: string): StubUnitValue {
    return new StubUnitValue(value, unit);
  };
}

/** The ruler units, as `Units.X` enumerators print (`String(Units.INCHES) === "Units.INCHES"`). */
export const RULER_UNITS = { PIXELS: "px", INCHES: "in", CM: "cm", MM: "mm", POINTS: "pt", PICAS: "pc" } as const;

/** Converts between document pixels and a ruler unit at a document's resolution (pixels per inch). */
export function toRuler(px: number, unit: string, resolution: number): number {
  return unit === "px" ? px : (px / resolution) * PER_INCH[unit]!;
}

export function fromRuler(value: number, unit: string, resolution: number): number {
  return unit === "px" ? value : (value / PER_INCH[unit]!) * resolution;
}

/** A length argument in pixels: a UnitValue converts by its unit, a plain number is read in the ruler units. */
export function lengthPx(v: unknown, unit: string, resolution: number): number {
  if (v instanceof StubUnitValue) return v.type === "px" ? v.value : fromRuler(v.as("in"), "in", resolution);
  if (typeof v === "number") return fromRuler(v, unit, resolution);
  throw new Error(`expected a length, got ${String(v)}`);
}
