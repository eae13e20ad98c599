import { BridgeError } from "../../protocol/index.js";

export type Rgba = readonly [number, number, number, number];

const NAMED_COLORS: Readonly<Record<string, Rgba>> = {
  white: [255, 255, 255, 255],
  black: [0, 0, 0, 255],
  transparent: [0, 0, 0, 0],
  gray: [128, 128, 128, 255],
  grey: [128, 128, 128, 255],
};

/**
 * Parses a CSS-like colour: `#rgb`, `#rrggbb`, `#rrggbbaa`, or `white`, `black`, `gray`/`grey`, `transparent`.
 * @throws BridgeError `BAD_REQUEST` for anything else.
 */
export function parseColor(value: string): Rgba {
  const text = value.trim().toLowerCase();
  const named = NAMED_COLORS[text];
  if (named) return named;
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/.exec(text)?.[1];
  if (hex === undefined) {
    throw new BridgeError("BAD_REQUEST", `Unknown colour "${value}"; use #rrggbb, #rrggbbaa, white or transparent`, {
      details: { background: value },
    });
  }
  const full = hex.length === 3 ? [...hex].map((c) => c + c).join("") : hex;
  const byte = (i: number): number => Number.parseInt(full.slice(i * 2, i * 2 + 2), 16);
  return [byte(0), byte(1), byte(2), full.length === 8 ? byte(3) : 255];
}
