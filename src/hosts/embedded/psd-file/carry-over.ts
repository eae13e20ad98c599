/**
 * Keeping the additional information ag-psd drops or cannot write back: every block of an original layer record
 * (matched by its `lyid`) that the written record lacks is carried over byte for byte, and so are the document's
 * global blocks (patterns, filter masks, linked files of smart objects, compositor settings…). Content a save
 * deliberately left out (a rasterised layer's text or smart object) stays out.
 *
 * The invariant a save keeps: the group nesting of the written file is the writer's alone. Groups are stored as a
 * flat run of records, each group opened by a record with a section divider block (`lsct`, or `lsdk` nested in a
 * PSB) and closed by a hidden "</Layer group>" record with its own `lyid`. The editor's tree is the truth about
 * nesting, and ag-psd writes the dividers from it; the original's divider records (kept for lossless saves) must
 * never lend their blocks to another record. A divider block carried onto a plain layer, or a plain layer's blocks
 * onto a divider, unbalances the groups and no reader can open the file again. So: divider keys are never carried,
 * blocks pass only between records of the same kind (divider to divider, layer to layer), and the original's ids
 * are the unique ones the editor opened it with (records sharing or lacking an id were numbered then).
 */
import type { LayerRecord } from "./layers.js";
import { withBlocks } from "./layers.js";
import { uniqueIds } from "./readable.js";
import { readPsdFile, writePsdFile } from "./sections.js";

/**
 * Keys that hold what a layer *is* (text, smart object, fill, shape, adjustment): gone on purpose when the editor
 * rasterised the layer, so never carried back to one.
 */
export const CONTENT_KEYS: ReadonlySet<string> = new Set([
  // text, smart objects
  "TySh", "tySh", "SoLd", "SoLE", "PlLd", "plLd",
  // fills and shapes
  "SoCo", "GdFl", "PtFl", "vscg", "vstk", "vogk",
  // adjustments
  "brit", "levl", "curv", "expA", "vibA", "hue ", "hue2", "blnc", "blwh", "phfl", "mixr", "clrL", "nvrt", "post", "thrs", "grdm", "selc", "CgEd",
]);

/**
 * Global keys a writer derives from the content it writes (16/32-bit layers, merged transparency markers): the
 * written file's own are right, the original's would be stale.
 */
/** Keys that open or close a group: the written tree's own, never the original's (see the invariant above). */
const DIVIDER_KEYS: ReadonlySet<string> = new Set(["lsct", "lsdk"]);

/** Whether a record opens or closes a group. */
function isDivider(layer: LayerRecord): boolean {
  return layer.blocks.some((block) => DIVIDER_KEYS.has(block.key));
}

const DERIVED_GLOBAL_KEYS: ReadonlySet<string> = new Set(["Lr16", "Lr32", "Layr", "Mt16", "Mt32", "Mtrn"]);

/** `(layerId, key)` pairs: what a save left out on purpose, or what the original says better than the writer. */
export type SkipBlock = (layerId: number, key: string) => boolean;

/**
 * Keys whose original bytes say it better than a writer's re-serialisation while the layer's record is as read:
 * content, effects, vector masks and artboards, which the editor never edits in place (ag-psd rounds some of
 * them: gradient stops, effect opacity stops).
 */
export const VERBATIM_KEYS: ReadonlySet<string> = new Set([...CONTENT_KEYS, "lfx2", "lmfx", "lrFX", "vmsk", "vsms", "artb", "artd", "abdd"]);

/**
 * `written` with the additional-information blocks of `originalBytes` that it lacks: per layer (by id) and for the
 * document, in the original's order after the written blocks; of the document's own blocks, those in `editedGlobals`
 * stay as written (and the original's of those keys go). Returns `written` itself when nothing is missing.
 * @throws BridgeError `BAD_REQUEST` when either file cannot be parsed.
 */
export function carryOverBlocks(
  written: Uint8Array,
  originalBytes: Uint8Array,
  skip: SkipBlock,
  prefer: SkipBlock = () => false,
  editedGlobals: ReadonlySet<string> = new Set(),
): Uint8Array {
  const file = readPsdFile(written);
  const original = readPsdFile(originalBytes);
  const psb = file.header.version === 2;
  const byId = new Map<number, LayerRecord>();
  for (const layer of uniqueIds(original.layers.layers)) byId.set(layer.id!, layer);
  let changed = false;
  const layers = file.layers.layers.map((layer) => {
    const record = layer.id === undefined ? undefined : byId.get(layer.id);
    if (record === undefined || layer.id === undefined || isDivider(record) !== isDivider(layer)) return layer;
    const id = layer.id;
    const from = record.blocks.filter((block) => !DIVIDER_KEYS.has(block.key));
    const originals = new Map(from.map((block) => [block.key, block]));
    let replaced = false;
    const blocks = layer.blocks.map((block) => {
      const original = originals.get(block.key);
      if (original === undefined || !prefer(id, block.key) || sameBytes(original.data, block.data)) return block;
      replaced = true;
      return original;
    });
    const present = new Set(layer.blocks.map((block) => block.key));
    const missing = from.filter((block) => !present.has(block.key) && !skip(id, block.key));
    if (missing.length === 0 && !replaced) return layer;
    changed = true;
    return withBlocks(layer, [...blocks, ...missing], psb);
  });
  // Document-level blocks (patterns, linked files, global text data) are not edited, so the original's bytes win,
  // except those the caller names as edited (the linked files once a smart object was given a new embedded file).
  const originalGlobals = new Map(
    original.globalBlocks.filter((block) => !DERIVED_GLOBAL_KEYS.has(block.key) && !editedGlobals.has(block.key)).map((block) => [block.key, block]),
  );
  const kept = file.globalBlocks.map((block) => {
    const from = originalGlobals.get(block.key);
    if (from === undefined || sameBytes(from.data, block.data)) return block;
    changed = true;
    return from;
  });
  const present = new Set(file.globalBlocks.map((block) => block.key));
  const globals = [...originalGlobals.values()].filter((block) => !present.has(block.key));
  if (!changed && globals.length === 0) return written;
  return writePsdFile({ ...file, layers: { ...file.layers, layers }, globalBlocks: [...kept, ...globals] });
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
}
