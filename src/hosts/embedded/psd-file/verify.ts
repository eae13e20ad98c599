/**
 * Reading a written PSD/PSB back before it replaces anything: a save that produced bytes no reader can open must
 * fail while the user's file is still whole. The check reads the structure other programs depend on, not the
 * pixels: the header, every section's length, each layer record and its channel lengths, the group nesting the
 * section dividers spell, and the merged image's header (its compression and, for RLE, the row length table).
 */
import { readFile } from "node:fs/promises";
import { isBridgeError } from "../../../protocol/errors.js";
import type { LayerRecord } from "./layers.js";
import type { PsdFile } from "./sections.js";
import { readPsdFile } from "./sections.js";

/** The largest edge each version may declare: 30,000 px in a PSD, 300,000 px in a PSB (the format's own limits). */
const MAX_EDGE = { 1: 30_000, 2: 300_000 } as const;

/** Most channels a file or a layer may have (the format's limit). */
const MAX_CHANNELS = 56;

/** Section divider types: 1 open folder, 2 closed folder (a group's own record), 3 the hidden record that ends it. */
const DIVIDER_GROUP = new Set([1, 2]);
const DIVIDER_END = 3;

/** The section divider type of a record (`lsct`, or `lsdk` nested in a PSB), or undefined for a plain layer. */
function dividerType(layer: LayerRecord): number | undefined {
  const block = layer.blocks.find((candidate) => candidate.key === "lsct" || candidate.key === "lsdk");
  if (block === undefined || block.data.length < 4) return undefined;
  return new DataView(block.data.buffer, block.data.byteOffset, 4).getUint32(0);
}

/**
 * Why the records' groups do not nest, or undefined when they do. Records are stored bottom first, so a group's
 * end record comes before its children and its own record after them.
 */
function nestingProblem(layers: readonly LayerRecord[]): string | undefined {
  let depth = 0;
  for (const [i, layer] of layers.entries()) {
    const type = dividerType(layer);
    if (type === DIVIDER_END) depth++;
    else if (type !== undefined && DIVIDER_GROUP.has(type)) {
      if (depth === 0) return `layer record ${i} ("${layer.name}") closes a group that was never opened`;
      depth--;
    }
  }
  return depth === 0 ? undefined : `${depth} group${depth === 1 ? " is" : "s are"} never closed`;
}

/** Why the merged image section cannot be read, or undefined when its header and row table hold. */
function mergedProblem(file: PsdFile): string | undefined {
  const { merged, header } = file;
  if (merged === undefined) return "the merged image section is missing";
  const rows = header.channels * header.height;
  switch (merged.compression) {
    case 0: {
      const expected = rows * Math.ceil((header.width * header.depth) / 8);
      return merged.data.length < expected ? `the raw merged image holds ${merged.data.length} bytes of ${expected}` : undefined;
    }
    case 1: {
      const wide = header.version === 2;
      const table = rows * (wide ? 4 : 2);
      if (merged.data.length < table) return `the merged image's row table needs ${table} bytes, ${merged.data.length} are there`;
      const view = new DataView(merged.data.buffer, merged.data.byteOffset, table);
      let total = 0;
      for (let row = 0; row < rows; row++) total += wide ? view.getUint32(row * 4) : view.getUint16(row * 2);
      const left = merged.data.length - table;
      return total > left ? `the merged image's rows add up to ${total} bytes, ${left} follow the row table` : undefined;
    }
    case 2:
    case 3:
      return merged.data.length === 0 ? "the compressed merged image is empty" : undefined;
    default:
      return `the merged image's compression ${merged.compression} is unknown`;
  }
}

/**
 * Why `bytes` would not open again as a PSD or PSB, or undefined when its structure reads back whole.
 * @example psdReadBackProblem(bytes) // "layer record 4 ("Layer 1") closes a group that was never opened"
 */
export function psdReadBackProblem(bytes: Uint8Array): string | undefined {
  let file: PsdFile;
  try {
    file = readPsdFile(bytes);
  } catch (error) {
    if (!isBridgeError(error)) throw error;
    const { reason, section, offset } = error.details ?? {};
    return reason === undefined ? error.message : `${String(reason)} (${String(section)}, byte ${String(offset)})`;
  }
  const { header } = file;
  const maxEdge = MAX_EDGE[header.version as 1 | 2];
  if (header.width < 1 || header.height < 1 || header.width > maxEdge || header.height > maxEdge) {
    return `the header declares ${header.width}×${header.height}, outside 1–${maxEdge} px`;
  }
  if (header.channels < 1 || header.channels > MAX_CHANNELS) return `the header declares ${header.channels} channels`;
  return nestingProblem(file.layers.layers) ?? mergedProblem(file);
}

/**
 * Reads a written file back from disk (the temporary file, before it is renamed over its target) and answers why
 * it would not open again, or undefined when it would.
 */
export async function psdFileReadBackProblem(path: string): Promise<string | undefined> {
  return psdReadBackProblem(await readFile(path));
}
