// The layer tree of a PSD/PSB as its layer records state it, read from the file format's description alone
// (not through ag-psd, which the editor itself uses): the expected side of the layer tree comparison.
import { Cursor, readOutline, walkTaggedBlocks } from "./sections.js";

/** Photoshop's four-character blend keys, by the names the editor reports. */
export const BLEND_KEYS = {
  pass: "pass through", norm: "normal", diss: "dissolve", dark: "darken", "mul ": "multiply", idiv: "color burn",
  lbrn: "linear burn", dkCl: "darker color", lite: "lighten", scrn: "screen", "div ": "color dodge", lddg: "linear dodge",
  lgCl: "lighter color", over: "overlay", sLit: "soft light", hLit: "hard light", vLit: "vivid light", lLit: "linear light",
  pLit: "pin light", hMix: "hard mix", diff: "difference", smud: "exclusion", fsub: "subtract", fdiv: "divide",
  "hue ": "hue", "sat ": "saturation", colr: "color", "lum ": "luminosity",
};

/** Adjustment layer keys, by what they adjust. */
export const ADJUSTMENT_KEYS = {
  levl: "levels", curv: "curves", brit: "brightness/contrast", CgEd: "brightness/contrast", blnc: "color balance",
  hue2: "hue/saturation", "hue ": "hue/saturation", nvrt: "invert", blwh: "black & white", grdm: "gradient map",
  phfl: "photo filter", expA: "exposure", vibA: "vibrance", mixr: "channel mixer", selc: "selective color",
  post: "posterize", thrs: "threshold", clrL: "color lookup",
};
/** Fill layer keys, by fill. */
export const FILL_KEYS = { SoCo: "solid", GdFl: "gradient", PtFl: "pattern" };
const TEXT_KEYS = new Set(["TySh", "tySh"]);
const SMART_OBJECT_KEYS = new Set(["SoLd", "SoLE", "PlLd", "plLd"]);
const VECTOR_KEYS = new Set(["vogk", "vmsk", "vsms", "vstk", "vscg"]);
const ARTBOARD_KEYS = new Set(["artb", "artd", "abdd"]);
const LONG_CHANNEL_LENGTH_PSB = 8;

/**
 * The layer tree, top-most first (as a Layers panel lists it, and as the editor reports it), each node with
 * `name`, `kind` (pixel, group, text, smartObject, adjustment, fill, shape), `visible`, `opacity` (0–255),
 * `blendMode`, `clipped`, `children` for groups, and what else the record carries in `features` (mask, vector
 * mask, effects, knockout, artboard, fill opacity, adjustment or fill type). Empty for a file without records.
 */
export function readLayerTree(bytes) {
  const outline = readOutline(bytes);
  if (outline.layerInfo === undefined) return [];
  const c = new Cursor(bytes, outline.layerInfo.start);
  const count = Math.abs(c.i16("the layer count"));
  const records = [];
  for (let i = 0; i < count; i++) records.push(readRecord(c, bytes, outline.psb, i));
  // Records run bottom-most first; a bounding divider (type 3) opens a group that its folder record (1, 2) closes.
  const root = { children: [] };
  const stack = [root];
  for (const record of records) {
    const top = stack[stack.length - 1];
    if (record.divider === 3) {
      const group = { children: [] };
      top.children.push(group);
      stack.push(group);
    } else if ((record.divider === 1 || record.divider === 2) && stack.length > 1) {
      const group = stack.pop();
      const children = group.children.reverse();
      Object.assign(group, nodeOf(record, "group"), { children });
    } else {
      top.children.push(nodeOf(record, record.kind));
    }
  }
  // Groups never closed (a damaged file) keep what they have.
  while (stack.length > 1) stack.pop().children.reverse();
  return root.children.reverse();
}

function nodeOf(record, kind) {
  const node = { name: record.name, kind, visible: record.visible, opacity: record.opacity, blendMode: record.blendMode, clipped: record.clipped, features: record.features };
  return kind === "group" ? { ...node, children: [] } : node;
}

function readRecord(c, bytes, psb, index) {
  const what = `layer record ${index}`;
  c.at += 16; // top, left, bottom, right
  const channels = c.u16(`the channel count of ${what}`);
  c.at += channels * (2 + (psb ? LONG_CHANNEL_LENGTH_PSB : 4));
  if (c.ascii(4, `the blend signature of ${what}`) !== "8BIM") throw new Error(`${what} has no 8BIM blend signature (byte ${c.at - 4})`);
  const key = c.ascii(4, `the blend key of ${what}`);
  const opacity = c.u8(`the opacity of ${what}`);
  const clipping = c.u8(`the clipping of ${what}`);
  const flags = c.u8(`the flags of ${what}`);
  c.at += 1;
  const extraLength = c.u32(`the extra data length of ${what}`);
  const end = c.at + extraLength;
  const maskLength = c.u32(`the mask data of ${what}`);
  const features = [];
  if (maskLength > 0) features.push("mask");
  c.at += maskLength;
  const rangesLength = c.u32(`the blending ranges of ${what}`);
  c.at += rangesLength;
  const nameLength = c.u8(`the name of ${what}`);
  const name = Buffer.from(c.take(nameLength, `the name of ${what}`)).toString("latin1");
  c.at += (4 - ((nameLength + 1) % 4)) % 4;
  const record = { name, visible: (flags & 2) === 0, opacity, blendMode: BLEND_KEYS[key] ?? key, clipped: clipping === 1, divider: 0, kind: "pixel", features };
  const keys = new Set();
  walkTaggedBlocks(bytes, c.at, end, psb, (tag, data) => {
    keys.add(tag);
    if (tag === "luni" && data.length >= 4) {
      const chars = new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(0);
      let unicode = "";
      for (let k = 0; k < chars && 5 + k * 2 < data.length; k++) unicode += String.fromCharCode((data[4 + k * 2] << 8) | data[5 + k * 2]);
      record.name = unicode.replace(/\0+$/, "");
    } else if ((tag === "lsct" || tag === "lsdk") && data.length >= 4) {
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
      record.divider = view.getUint32(0);
      if (data.length >= 12) record.blendMode = BLEND_KEYS[String.fromCharCode(...data.subarray(8, 12))] ?? record.blendMode;
    } else if (tag === "iOpa" && data.length >= 1 && data[0] < 255) features.push("fillOpacity");
    else if (tag === "knko" && data[0]) features.push("knockout");
    else if ((tag === "lfx2" || tag === "lrFX" || tag === "lmfx") && !features.includes("effects")) features.push("effects");
  });
  c.at = end;
  if (keys.has("vmsk") || keys.has("vsms")) features.push("vectorMask");
  if ([...ARTBOARD_KEYS].some((k) => keys.has(k))) features.push("artboard");
  const adjustment = Object.keys(ADJUSTMENT_KEYS).find((k) => keys.has(k));
  const fill = Object.keys(FILL_KEYS).find((k) => keys.has(k));
  // "Pixel data irrelevant to the document's appearance" (flag bit 4) with vector data makes a shape layer.
  const shape = (flags & 0x10) !== 0 && [...VECTOR_KEYS].some((k) => keys.has(k));
  if ([...TEXT_KEYS].some((k) => keys.has(k))) record.kind = "text";
  else if ([...SMART_OBJECT_KEYS].some((k) => keys.has(k))) record.kind = "smartObject";
  else if (adjustment) {
    record.kind = "adjustment";
    features.push(`adjustment:${ADJUSTMENT_KEYS[adjustment]}`);
  } else if (shape) record.kind = "shape";
  else if (fill) {
    record.kind = "fill";
    features.push(`fill:${FILL_KEYS[fill]}`);
  }
  if (shape && fill) features.push(`fill:${FILL_KEYS[fill]}`);
  return record;
}
