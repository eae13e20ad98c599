/**
 * Reading what the font list needs straight from OpenType / TrueType files (and the fonts of a `.ttc` collection):
 * each face's family, style and PostScript name from its `name` table, and the characters it has from its `cmap`.
 * Only the tables asked for are read, at their offsets, so listing every font of a machine reads a few kilobytes of
 * each; shaping and outlines are HarfBuzz's (`shaper.ts`), which is given the whole file once a font is used.
 */
import type { FileHandle } from "node:fs/promises";

/** One face of a font file: its names, where it is, and which of the file's faces it is. */
export interface FaceNames {
  readonly family: string;
  readonly style: string;
  readonly postScriptName: string;
  /** The full name (`Noto Sans Bold`), which fontconfig and GIMP match on. */
  readonly fullName: string;
}

const TAG_TTCF = 0x74746366;

async function bytesAt(file: FileHandle, offset: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, offset);
  if (bytesRead < length) throw new Error(`font file ends at ${offset + bytesRead}, before ${offset + length}`);
  return buffer;
}

/** The offsets of a file's faces: one for a plain font, one per face of a collection. */
export async function faceOffsets(file: FileHandle): Promise<number[]> {
  const head = await bytesAt(file, 0, 12);
  if (head.readUInt32BE(0) !== TAG_TTCF) return [0];
  const count = Math.min(head.readUInt32BE(8), 256);
  const table = await bytesAt(file, 12, count * 4);
  return Array.from({ length: count }, (_, i) => table.readUInt32BE(i * 4));
}

/** A face's table directory: tag → [offset, length]. */
async function tables(file: FileHandle, faceOffset: number): Promise<Map<string, readonly [number, number]>> {
  const head = await bytesAt(file, faceOffset, 12);
  const version = head.readUInt32BE(0);
  // TrueType (1.0 or 'true'), CFF ('OTTO').
  if (version !== 0x00010000 && version !== 0x74727565 && version !== 0x4f54544f) throw new Error("not an OpenType face");
  const count = head.readUInt16BE(4);
  const dir = await bytesAt(file, faceOffset + 12, count * 16);
  const out = new Map<string, readonly [number, number]>();
  for (let i = 0; i < count; i++) out.set(dir.toString("latin1", i * 16, i * 16 + 4), [dir.readUInt32BE(i * 16 + 8), dir.readUInt32BE(i * 16 + 12)] as const);
  return out;
}

function utf16be(bytes: Buffer): string {
  let out = "";
  for (let i = 0; i + 1 < bytes.length; i += 2) out += String.fromCharCode(bytes.readUInt16BE(i));
  return out;
}

/** The names of the face at `faceOffset`, the English (Windows, US) records preferred. */
export async function readFaceNames(file: FileHandle, faceOffset: number): Promise<FaceNames> {
  const entry = (await tables(file, faceOffset)).get("name");
  if (entry === undefined) throw new Error("no name table");
  const table = await bytesAt(file, entry[0], entry[1]);
  const count = table.readUInt16BE(2);
  const strings = table.readUInt16BE(4);
  // Each name id's best record: Windows Unicode US English, then any Windows Unicode, then Mac Roman.
  const best = new Map<number, { rank: number; text: string }>();
  for (let i = 0; i < count; i++) {
    const at = 6 + i * 12;
    const [platform, encoding, language, nameId, length, offset] = [0, 2, 4, 6, 8, 10].map((o) => table.readUInt16BE(at + o)) as [number, number, number, number, number, number];
    if (![1, 2, 4, 6, 16, 17].includes(nameId)) continue;
    const bytes = table.subarray(strings + offset, strings + offset + length);
    let rank: number;
    let text: string;
    if (platform === 3 && (encoding === 1 || encoding === 10)) [rank, text] = [language === 0x409 ? 0 : 1, utf16be(bytes)];
    else if (platform === 0) [rank, text] = [2, utf16be(bytes)];
    else if (platform === 1 && encoding === 0 && language === 0) [rank, text] = [3, bytes.toString("latin1")];
    else continue;
    const had = best.get(nameId);
    if (had === undefined || rank < had.rank) best.set(nameId, { rank, text });
  }
  const name = (id: number): string | undefined => best.get(id)?.text.trim() || undefined;
  // The typographic family and style (16, 17) group a family's weights as people name them; 1 and 2 are the legacy
  // four-style names.
  const family = name(16) ?? name(1) ?? "Unknown";
  const style = name(17) ?? name(2) ?? "Regular";
  const postScriptName = name(6) ?? `${family}-${style}`.replace(/\s+/g, "");
  return { family, style, postScriptName, fullName: name(4) ?? `${family} ${style}` };
}

/**
 * The characters the face at `faceOffset` maps to glyphs, from its Unicode `cmap` subtable (format 12, else 4), as
 * sorted, inclusive `[first, last]` ranges.
 */
export async function readCoverage(file: FileHandle, faceOffset: number): Promise<Uint32Array> {
  const entry = (await tables(file, faceOffset)).get("cmap");
  if (entry === undefined) return new Uint32Array(0);
  const cmap = await bytesAt(file, entry[0], entry[1]);
  const count = cmap.readUInt16BE(2);
  let chosen: { format: number; offset: number } | undefined;
  for (let i = 0; i < count; i++) {
    const [platform, encoding] = [cmap.readUInt16BE(4 + i * 8), cmap.readUInt16BE(6 + i * 8)];
    const offset = cmap.readUInt32BE(8 + i * 8);
    const format = cmap.readUInt16BE(offset);
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (!unicode || (format !== 4 && format !== 12)) continue;
    if (chosen === undefined || (format === 12 && chosen.format !== 12)) chosen = { format, offset };
  }
  if (chosen === undefined) return new Uint32Array(0);
  const ranges: number[] = [];
  const at = chosen.offset;
  if (chosen.format === 12) {
    const groups = cmap.readUInt32BE(at + 12);
    for (let i = 0; i < groups; i++) ranges.push(cmap.readUInt32BE(at + 16 + i * 12), cmap.readUInt32BE(at + 20 + i * 12));
  } else {
    const segments = cmap.readUInt16BE(at + 6) / 2;
    const ends = at + 14;
    const starts = ends + segments * 2 + 2;
    for (let i = 0; i < segments; i++) {
      const [start, end] = [cmap.readUInt16BE(starts + i * 2), cmap.readUInt16BE(ends + i * 2)];
      if (start !== 0xffff) ranges.push(start, end);
    }
  }
  return Uint32Array.from(ranges);
}

/** Whether sorted `[first, last]` ranges hold `codePoint`. */
export function covers(ranges: Uint32Array, codePoint: number): boolean {
  let [lo, hi] = [0, ranges.length / 2 - 1];
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (codePoint < ranges[mid * 2]!) hi = mid - 1;
    else if (codePoint > ranges[mid * 2 + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}
