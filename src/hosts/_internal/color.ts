import { BridgeError } from "../../protocol/errors.js";
import type { Rgba } from "../host.js";

const NAMED_COLORS: Readonly<Record<string, Rgba>> = {
  white: [255, 255, 255, 255],
  black: [0, 0, 0, 255],
  transparent: [0, 0, 0, 0],
  red: [255, 0, 0, 255],
  green: [0, 128, 0, 255],
  blue: [0, 0, 255, 255],
  gray: [128, 128, 128, 255],
  grey: [128, 128, 128, 255],
};

/**
 * Parses a CSS-like colour, the same way for every editor: `#rgb`, `#rrggbb`, `#rrggbbaa`, or one of the names
 * `white`, `black`, `transparent`, `red`, `green`, `blue`, `gray`/`grey`.
 * @throws BridgeError `BAD_REQUEST` naming `field` for anything else.
 */
export function parseColor(value: string, field = "color"): Rgba {
  const text = value.trim().toLowerCase();
  const named = NAMED_COLORS[text];
  if (named) return named;
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/.exec(text)?.[1];
  if (hex === undefined) {
    throw new BridgeError("BAD_REQUEST", `Unknown colour "${value}"; use #rrggbb, #rrggbbaa or one of ${Object.keys(NAMED_COLORS).join(", ")}`, {
      details: { [field]: value },
    });
  }
  const full = hex.length === 3 ? [...hex].map((c) => c + c).join("") : hex;
  const byte = (i: number): number => Number.parseInt(full.slice(i * 2, i * 2 + 2), 16);
  return [byte(0), byte(1), byte(2), full.length === 8 ? byte(3) : 255];
}

/** `rgba(r,g,b,a)` for SVG and CSS, alpha as 0–1. */
export function cssColor([r, g, b, a]: Rgba): string {
  return `rgba(${r},${g},${b},${Math.round((a / 255) * 1000) / 1000})`;
}
