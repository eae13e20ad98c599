/**
 * Keeping the image resources ag-psd drops on read (the ICC profile, EXIF, IPTC, paths, alpha channel names…):
 * every resource of the original that the written file lacks is carried over, byte for byte, except the few that
 * describe state a save may have changed.
 */
import type { ResourceBlock } from "./sections.js";
import { readPsdFile, writePsdFile } from "./sections.js";

/**
 * Resources never carried over, with the reason. Everything else the written file lacks is copied as stored:
 * ICC profile (1039) and its untagged flag (1041), XMP (1060), EXIF (1058/1059), IPTC (1028) and its digest (1061),
 * paths (2000–2997), the clipping path name (2999), the working path (1025), alpha channel names and ids
 * (1006/1045/1053) and their display info (1077), guides and grid (1032), slices (1050), print settings
 * (1011, 1013, 1016, 1062, 1082, 1083, 10000), layer comps (1065), timeline (1075), global light (1037/1049),
 * indexed colour count and transparency (1046/1047), plug-in data (4000–4999), and any id not known here.
 */
export const DROPPED_RESOURCES: ReadonlyMap<number, string> = new Map([
  [1033, "thumbnail (old format): shows the picture as it was"],
  [1036, "thumbnail: shows the picture as it was"],
  [1024, "target layer index: layers may have been added, removed or reordered"],
  [1026, "layer group ids: one entry per layer record, written by ag-psd for the records it writes"],
  [1072, "layer group enabled ids: one entry per layer record, written by ag-psd"],
  [1069, "selected layer ids: the selection may name layers that are gone"],
  [1057, "version info (has real merged data): written by the saver through ag-psd, never overridden"],
]);

/** The layer id seed: raised above the largest layer id written so Photoshop never hands out one twice. */
const IDS_SEED_RESOURCE = 1044;

function largestLayerId(blocks: ReturnType<typeof readPsdFile>): number {
  return Math.max(0, ...blocks.layers.layers.map((layer) => layer.id ?? 0));
}

/**
 * `written` with every image resource of `originalBytes` it lacks (by id) appended after its own, except
 * {@link DROPPED_RESOURCES}; the layer id seed (1044) is carried raised above the largest layer id written.
 * Resources the written file has are left as written.
 * @throws BridgeError `BAD_REQUEST` when either file cannot be parsed.
 */
export function carryOverResources(written: Uint8Array, originalBytes: Uint8Array): Uint8Array {
  const file = readPsdFile(written);
  const original = readPsdFile(originalBytes);
  const present = new Set(file.resources.map((block) => block.id));
  const carried: ResourceBlock[] = [];
  for (const block of original.resources) {
    if (present.has(block.id) || DROPPED_RESOURCES.has(block.id)) continue;
    present.add(block.id);
    if (block.id === IDS_SEED_RESOURCE && block.data.length >= 4) {
      const data = new Uint8Array(block.data); // a copy: the block is a view of the file
      const view = new DataView(data.buffer);
      view.setUint32(0, Math.max(view.getUint32(0), largestLayerId(file) + 1));
      carried.push({ ...block, data });
    } else {
      carried.push(block);
    }
  }
  if (carried.length === 0) return written;
  return writePsdFile({ ...file, resources: [...file.resources, ...carried] });
}
