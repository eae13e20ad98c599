/*
 * What an adjustment compiles to before it touches a pixel: per-channel lookup tables when every output channel
 * depends on its own input only (levels, curves, exposure…: one table read per channel), or a function of the
 * whole colour (hue/saturation, colour balance with preserved luminosity, mixers…).
 */

/** A 256-entry table per channel: output level by input level. */
export type ChannelTables = readonly [Uint8Array, Uint8Array, Uint8Array];

/**
 * A function of the whole colour: reads `r, g, b` (0–255 integers) and writes 0–255 values (any float; the loop
 * rounds and clamps) into `out`.
 */
export type ColorFunction = (r: number, g: number, b: number, out: Float64Array) => void;

/** A compiled adjustment. */
export type ColorProgram = { readonly kind: "tables"; readonly tables: ChannelTables } | { readonly kind: "color"; readonly fn: ColorFunction };

/** The identity table (0…255). */
export function identityTable(): Uint8Array {
  const table = new Uint8Array(256);
  for (let i = 0; i < 256; i++) table[i] = i;
  return table;
}

/** A table from a function of the level (0–255 in, any number out: rounded and clamped). */
export function tableOf(fn: (level: number) => number): Uint8Array {
  const table = new Uint8Array(256);
  for (let i = 0; i < 256; i++) {
    const v = fn(i);
    table[i] = Number.isFinite(v) ? Math.round(Math.min(255, Math.max(0, v))) : i;
  }
  return table;
}

/** `outer(inner(x))` as one table. */
export function composeTables(inner: Uint8Array, outer: Uint8Array): Uint8Array {
  const table = new Uint8Array(256);
  for (let i = 0; i < 256; i++) table[i] = outer[inner[i] ?? 0] ?? 0;
  return table;
}

/** The same table for all three channels. */
export function sameTables(table: Uint8Array): ColorProgram {
  return { kind: "tables", tables: [table, table, table] };
}

/** A number from a file, or `fallback` when it is missing or not finite (a damaged record must not poison a table). */
export function finite(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) ? value : fallback;
}

/** Rec. 601 luma of a 0–255 colour: Photoshop's grey for threshold, black & white's tint and preserved luminosity. */
export function luma(r: number, g: number, b: number): number {
  return 0.299 * r + 0.587 * g + 0.114 * b;
}
