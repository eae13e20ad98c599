import { BridgeError, type HostRect } from "../../protocol/index.js";


/** A rectangle clipped to the canvas on whole pixels, or null when nothing is left. */
export function clipToCanvas(rect: HostRect, width: number, height: number): HostRect | null {
  const left = Math.max(0, Math.floor(rect.x));
  const top = Math.max(0, Math.floor(rect.y));
  const right = Math.min(width, Math.ceil(rect.x + rect.width));
  const bottom = Math.min(height, Math.ceil(rect.y + rect.height));
  if (right <= left || bottom <= top) return null;
  return { x: left, y: top, width: right - left, height: bottom - top };
}


const NAMED: Readonly<Record<string, readonly [number, number, number, number]>> = {
  white: [255, 255, 255, 255],
  black: [0, 0, 0, 255],
  transparent: [0, 0, 0, 0],
  red: [255, 0, 0, 255],
  green: [0, 128, 0, 255],
  blue: [0, 0, 255, 255],
  gray: [128, 128, 128, 255],
  grey: [128, 128, 128, 255],
};

/** `document:create`'s background: a few names, `#rgb`, `#rrggbb` or `#rrggbbaa`. */
export function parseColor(value: string): readonly [number, number, number, number] {
  const text = value.trim().toLowerCase();
  const named = NAMED[text];
  if (named) return named;
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/.exec(text)?.[1];
  if (hex === undefined) {
    throw new BridgeError("BAD_REQUEST", `Unknown color "${value}"; use a name (${Object.keys(NAMED).join(", ")}) or #rrggbb[aa]`, {
      details: { color: value },
    });
  }
  const full = hex.length === 3 ? [...hex].map((c) => c + c).join("") : hex;
  const byte = (i: number): number => Number.parseInt(full.slice(i, i + 2), 16);
  return [byte(0), byte(2), byte(4), full.length === 8 ? byte(6) : 255];
}
