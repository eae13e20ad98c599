// The outline of a PSD/PSB file as Adobe's file-format description lays it out: the 26-byte header, then four
// sections each led by its length (colour mode data, image resources, layer and mask information), then the
// merged image. Read independently of the editor's own code: this is the reference side of the measurement.

/** Colour mode numbers in the header, by name. */
export const COLOUR_MODES = { 0: "bitmap", 1: "grayscale", 2: "indexed", 3: "rgb", 4: "cmyk", 7: "multichannel", 8: "duotone", 9: "lab" };

/** Additional-layer-information keys whose length field is 8 bytes in a PSB. */
const LONG_KEYS_PSB = new Set(["LMsk", "Lr16", "Lr32", "Layr", "Mt16", "Mt32", "Mtrn", "Alph", "FMsk", "lnk2", "FEid", "FXid", "PxSD"]);

/** A reader over a byte array that names what it was reading when the file ends early. */
export class Cursor {
  constructor(bytes, at = 0) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.at = at;
  }
  need(n, what) {
    if (this.at + n > this.bytes.length) throw new Error(`file ends at byte ${this.bytes.length} while reading ${what} (byte ${this.at}, ${n} bytes)`);
  }
  u8(what) { this.need(1, what); return this.bytes[this.at++]; }
  u16(what) { this.need(2, what); const v = this.view.getUint16(this.at); this.at += 2; return v; }
  i16(what) { this.need(2, what); const v = this.view.getInt16(this.at); this.at += 2; return v; }
  u32(what) { this.need(4, what); const v = this.view.getUint32(this.at); this.at += 4; return v; }
  i32(what) { this.need(4, what); const v = this.view.getInt32(this.at); this.at += 4; return v; }
  u64(what) { this.need(8, what); const v = Number(this.view.getBigUint64(this.at)); this.at += 8; return v; }
  /** A length field: 8 bytes where `long`, else 4. */
  len(long, what) { return long ? this.u64(what) : this.u32(what); }
  ascii(n, what) { this.need(n, what); const s = String.fromCharCode(...this.bytes.subarray(this.at, this.at + n)); this.at += n; return s; }
  take(n, what) { this.need(n, what); const b = this.bytes.subarray(this.at, this.at + n); this.at += n; return b; }
}

/**
 * Walks additional layer information blocks (`8BIM`/`8B64` signature, key, length, data) from `start` to `end`,
 * calling `visit(key, data)`. Blocks are padded by writers to 2 or 4 bytes; the padding is skipped by looking for
 * the next signature, so either alignment reads.
 */
export function walkTaggedBlocks(bytes, start, end, psb, visit) {
  const c = new Cursor(bytes, start);
  while (c.at + 12 <= end) {
    const signature = c.ascii(4, "a tagged block signature");
    if (signature !== "8BIM" && signature !== "8B64") return;
    const key = c.ascii(4, "a tagged block key");
    const length = c.len(psb && LONG_KEYS_PSB.has(key), `the length of tagged block ${key}`);
    const data = c.take(Math.min(length, end - c.at), `tagged block ${key}`);
    visit(key, data, c.at - data.length);
    let pad = 0;
    while (pad < 4 && c.at + pad < end && !isSignature(bytes, c.at + pad)) pad++;
    if (c.at + pad >= end || pad === 4) return;
    c.at += pad;
  }
}

function isSignature(bytes, at) {
  return bytes[at] === 0x38 && bytes[at + 1] === 0x42 && (bytes[at + 2] === 0x49 || bytes[at + 2] === 0x36) && (bytes[at + 3] === 0x4d || bytes[at + 3] === 0x34);
}

/**
 * The header and where each section sits. `layerInfo` is where the layer records start (after the layer info
 * length) and `layerInfoEnd` where they end; in 16- and 32-bit files Photoshop leaves that part empty and puts
 * the records in an `Lr16`/`Lr32` tagged block, found here too.
 */
export function readOutline(bytes) {
  const c = new Cursor(bytes);
  const signature = c.ascii(4, "the header signature");
  if (signature !== "8BPS") throw new Error(`not a PSD file: the first bytes are not 8BPS (byte 0)`);
  const version = c.u16("the header version");
  if (version !== 1 && version !== 2) throw new Error(`version ${version} is neither 1 (PSD) nor 2 (PSB) (byte 4)`);
  c.at += 6;
  const channels = c.u16("the channel count");
  const height = c.u32("the height");
  const width = c.u32("the width");
  const depth = c.u16("the depth");
  const mode = c.u16("the colour mode");
  const psb = version === 2;
  const colourModeLength = c.u32("the colour mode data length");
  const colourModeData = c.take(colourModeLength, "the colour mode data");
  const resourcesLength = c.u32("the image resources length");
  const resources = { start: c.at, end: c.at + resourcesLength };
  c.take(resourcesLength, "the image resources");
  const layerSectionLength = c.len(psb, "the layer and mask section length");
  const layerSection = { start: c.at, end: c.at + layerSectionLength };
  c.need(layerSectionLength, "the layer and mask section");
  const imageData = layerSection.end;
  const outline = { version, psb, channels, height, width, depth, mode, colourMode: COLOUR_MODES[mode] ?? `mode ${mode}`, colourModeData, resources, layerSection, imageData, layerInfo: undefined, globalKeys: new Set() };
  if (layerSectionLength === 0) return outline;
  const l = new Cursor(bytes, layerSection.start);
  const layerInfoLength = l.len(psb, "the layer info length");
  if (layerInfoLength > 0) outline.layerInfo = { start: l.at, end: l.at + layerInfoLength };
  l.at += layerInfoLength;
  if (l.at + 4 <= layerSection.end) {
    const globalMaskLength = l.u32("the global layer mask info length");
    l.at += globalMaskLength;
  }
  walkTaggedBlocks(bytes, l.at, layerSection.end, psb, (key, data, at) => {
    outline.globalKeys.add(key);
    if ((key === "Lr16" || key === "Lr32" || key === "Layr") && outline.layerInfo === undefined && data.length > 0) {
      outline.layerInfo = { start: at, end: at + data.length };
    }
  });
  return outline;
}

/** Image resource blocks by id (`8BIM`, id, padded Pascal name, length, data padded to even). */
export function readResources(bytes, outline) {
  const map = new Map();
  const c = new Cursor(bytes, outline.resources.start);
  while (c.at + 12 <= outline.resources.end) {
    if (c.ascii(4, "an image resource signature") !== "8BIM") break;
    const id = c.u16("an image resource id");
    const nameLength = c.u8("an image resource name");
    c.at += nameLength + ((nameLength + 1) % 2);
    const length = c.u32(`the length of image resource ${id}`);
    map.set(id, c.take(length, `image resource ${id}`));
    c.at += length % 2;
  }
  return map;
}

/** The signed layer count at the start of the layer records (negative: the merged image's first alpha is its transparency). */
export function layerCount(bytes, outline) {
  if (outline.layerInfo === undefined) return 0;
  return new Cursor(bytes, outline.layerInfo.start).i16("the layer count");
}
