/**
 * Decoded channel planes and their samples: reading a stored sample as a 0–1 value (32-bit colour through the
 * sRGB curve, see `color.ts`) and writing 8-bit values or 0–1 values back at any depth.
 */
import { linearToSrgb, to16, to32, toByte } from "./color.js";

/** One channel's samples, decoded: big-endian rows of `depth`-bit samples. */
export interface Plane {
  readonly bytes: Uint8Array;
  readonly view: DataView;
}

export function plane(bytes: Uint8Array): Plane {
  return { bytes, view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}

/** A zeroed plane of `count` samples at `depth` bits (whole bytes per sample; 1-bit planes are packed by rows). */
export function emptyPlane(count: number, depth: number): Plane {
  return plane(new Uint8Array(count * Math.max(1, depth / 8)));
}

/** Sample `i` of a plane as a value in [0, 1]. `color` applies the 32-bit linear → sRGB curve. */
export type UnitReader = (source: Plane, i: number) => number;

export function unitReader(depth: number, color: boolean): UnitReader {
  if (depth === 16) return (source, i) => source.view.getUint16(i * 2) / 65535;
  if (depth === 32) {
    return color
      ? (source, i) => linearToSrgb(source.view.getFloat32(i * 4))
      : (source, i) => {
          const value = source.view.getFloat32(i * 4);
          return value > 0 ? (value < 1 ? value : 1) : 0;
        };
  }
  return (source, i) => source.bytes[i]! / 255;
}

/** Writes an 8-bit value as sample `i` at `depth` (exact inverses of reading for 8-bit values). */
export type ByteWriter = (target: Plane, i: number, value: number) => void;

export function byteWriter(depth: number, color: boolean): ByteWriter {
  if (depth === 16) return (target, i, value) => target.view.setUint16(i * 2, to16(value));
  if (depth === 32) {
    return color ? (target, i, value) => target.view.setFloat32(i * 4, to32(value)) : (target, i, value) => target.view.setFloat32(i * 4, value / 255);
  }
  return (target, i, value) => {
    target.bytes[i] = value;
  };
}

/** Writes a 0–1 value as sample `i` at 8 or 16 bits (CMYK and Lab, which have no 32-bit form). */
export type UnitWriter = (target: Plane, i: number, unit: number) => void;

export function unitWriter(depth: number): UnitWriter {
  if (depth === 16) return (target, i, unit) => target.view.setUint16(i * 2, Math.round(Math.min(1, Math.max(0, unit)) * 65535));
  return (target, i, unit) => {
    target.bytes[i] = toByte(unit);
  };
}
