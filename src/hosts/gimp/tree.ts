import type { HostDocument, HostLayer, LayerKind, LayerText } from "../../protocol/index.js";
import { asList, asNumber, asString, type Sexp } from "./scheme.js";

/** GIMP 2.10 layer modes (`GimpLayerMode`) by number, as blend-mode names of the protocol. */
export const LAYER_MODES: Readonly<Record<number, string>> = {
  0: "normal", 1: "dissolve", 3: "multiply", 4: "screen", 5: "overlay", 6: "difference", 7: "linear dodge",
  8: "subtract", 9: "darken", 10: "lighten", 11: "hue", 12: "saturation", 13: "color", 14: "luminosity",
  15: "divide", 16: "color dodge", 17: "color burn", 18: "hard light", 19: "soft light", 20: "grain extract",
  21: "grain merge", 23: "overlay", 24: "hue", 25: "chroma", 26: "color", 27: "lightness", 28: "normal",
  29: "behind", 30: "multiply", 31: "screen", 32: "difference", 33: "linear dodge", 34: "subtract", 35: "darken",
  36: "lighten", 37: "hue", 38: "saturation", 39: "color", 40: "luminosity", 41: "divide", 42: "color dodge",
  43: "color burn", 44: "hard light", 45: "soft light", 46: "grain extract", 47: "grain merge", 48: "vivid light",
  49: "pin light", 50: "linear light", 51: "hard mix", 52: "exclusion", 53: "linear burn", 54: "darker color",
  55: "lighter color", 56: "luminance", 57: "color erase", 58: "erase", 59: "merge", 60: "split",
  61: "pass through", 62: "replace", 63: "anti erase",
};

/** `br-layer-info`'s kinds; `br-tree` marks the background layer (see `../../../docs/gimp.md`). */
const KINDS: readonly LayerKind[] = ["pixel", "group", "text", "background"];

const COLOR_MODES: readonly string[] = ["RGB", "Grayscale", "Indexed"];

/** A document's layers as GIMP reported them: the active layer id and the tree. */
export interface LayerTree {
  readonly activeId: number;
  readonly roots: HostLayer[];
  /** Every layer in layer-index order. */
  readonly flat: HostLayer[];
}

/** What GIMP's layer masks are besides applied or not: they move with their layer, at full density, unfeathered. */
const MASK_LINKED = true;
const MASK_DENSITY = 100;
const MASK_FEATHER = 0;

/**
 * Parses `br-tree`: `(active (layer …) …)`, each layer `(id name kind visible opacity mode x y w h children locked
 * mask text)`, mask -1 without one, else whether it applies; text `()` but for a text layer (`br-text-info`).
 */
export function parseTree(value: Sexp): LayerTree {
  const [active, layers] = asList(value, "layer tree") as [Sexp, Sexp];
  const flat: HostLayer[] = [];
  const build = (entry: Sexp): HostLayer => {
    const f = asList(entry, "layer");
    const x = asNumber(f[6], "layer x");
    const y = asNumber(f[7], "layer y");
    const width = asNumber(f[8], "layer width");
    const height = asNumber(f[9], "layer height");
    const layer: HostLayer = {
      id: asNumber(f[0], "layer id"),
      index: flat.length,
      name: asString(f[1], "layer name"),
      kind: KINDS[asNumber(f[2], "layer kind")] ?? "pixel",
      visible: asNumber(f[3], "layer visibility") === 1,
      opacity: Math.round(Math.min(100, Math.max(0, asNumber(f[4], "layer opacity"))) * 10) / 10,
      blendMode: LAYER_MODES[asNumber(f[5], "layer mode")] ?? "normal",
      bounds: { left: x, top: y, right: x + width, bottom: y + height },
      rect: { x, y, width, height },
      clipped: false,
      locked: asNumber(f[11], "layer lock") === 1,
    };
    const mask = asNumber(f[12], "layer mask");
    if (mask >= 0) layer.mask = { enabled: mask === 1, linked: MASK_LINKED, density: MASK_DENSITY, feather: MASK_FEATHER };
    const text = asList(f[13] ?? [], "layer text");
    if (text.length > 0) layer.text = parseText(text, x, y, width, height);
    flat.push(layer);
    const children = asList(f[10] ?? [], "layer children").map(build);
    if (layer.kind === "group") layer.children = children;
    return layer;
  };
  const roots = asList(layers, "layers").map(build);
  return { activeId: asNumber(active, "active layer"), roots, flat };
}

/** A layer without its children, as `layer:selectionChange` lists it. */
export function withoutChildren(layer: HostLayer): HostLayer {
  const { children: _, ...rest } = layer;
  return rest;
}

/** The active layer of a tree, or undefined when none is active. */
export function activeLayer(tree: LayerTree): HostLayer | undefined {
  return tree.flat.find((l) => l.id === tree.activeId);
}

/** Parses `br-doc`: `(id gimp-name bridge-name w h xres base-type dirty filename active)`. */
export function parseDocument(value: Sexp): HostDocument {
  const f = asList(value, "document");
  const gimpName = asString(f[1], "image name");
  const bridgeName = asString(f[2], "image label");
  const filename = asString(f[8], "image filename");
  const active = asNumber(f[9], "active layer");
  const doc: HostDocument = {
    id: asNumber(f[0], "image id"),
    name: bridgeName !== "" ? bridgeName : gimpName,
    width: asNumber(f[3], "image width"),
    height: asNumber(f[4], "image height"),
    resolution: asNumber(f[5], "image resolution") || 72,
    colorMode: COLOR_MODES[asNumber(f[6], "image type")] ?? "RGB",
    isDirty: asNumber(f[7], "dirty flag") !== 0,
    // GIMP keeps no count of changes: the adapter's own count (revisions.ts) replaces this on the way out.
    revision: 0,
    activeLayerIds: active >= 0 ? [active] : [],
  };
  if (filename !== "") doc.filePath = filename;
  return doc;
}

/** Parses `br-doc-tree`: `(document tree)`. */
export function parseDocumentTree(value: Sexp): { document: HostDocument; tree: LayerTree } {
  const [document, tree] = asList(value, "document tree") as [Sexp, Sexp];
  return { document: parseDocument(document), tree: parseTree(tree) };
}

/** GIMP's `GimpTextJustification` by number. */
const JUSTIFICATIONS: readonly LayerText["alignment"][] = ["left", "right", "center", "justify"];
/** GIMP's `GimpTextDirection`: 0 and 1 run horizontally, 2–5 are its vertical directions. */
const DIRECTIONS: readonly NonNullable<LayerText["direction"]>[] = ["ltr", "rtl", "ttb", "ttb", "ttb", "ttb"];
/** Points per inch. */
const POINTS_PER_INCH = 72;

const hex = (channels: readonly number[]): string => `#${channels.map((c) => Math.round(c).toString(16).padStart(2, "0")).join("")}`;
/** Enough digits to give back the size a call set, without the float noise of the turn into pixels and back. */
const settle = (value: number): number => Math.round(value * 10_000) / 10_000;

/**
 * Parses `br-text-info` of a text layer at (x, y), w × h: `(text font px resolution (r g b) justify line-spacing
 * letter-spacing antialias direction language mark ascent line-height)`. Sizes come back in points, tracking in
 * thousandths of an em; the placement from the bridge's mark (see `edits/scheme-text.ts`), or for a layer made
 * without the bridge, its first baseline one ascent below its top-left corner.
 */
export function parseText(f: readonly Sexp[], x: number, y: number, width: number, height: number): LayerText {
  const px = asNumber(f[2], "text size");
  const resolution = asNumber(f[3], "image resolution") || POINTS_PER_INCH;
  const points = (value: number): number => settle((value * POINTS_PER_INCH) / resolution);
  const lineSpacing = asNumber(f[6], "line spacing");
  const mark = asString(f[11], "text mark").split(" ");
  const language = asString(f[10], "text language");
  const text: LayerText = {
    text: asString(f[0], "text"),
    font: asString(f[1], "font"),
    size: points(px),
    color: hex(asList(f[4] ?? [], "text colour").map((c) => asNumber(c, "colour channel"))),
    alignment: JUSTIFICATIONS[asNumber(f[5], "justification")] ?? "left",
    tracking: px > 0 ? settle((asNumber(f[7], "letter spacing") / px) * 1000) : 0,
    antiAlias: asNumber(f[8], "antialias") === 1 ? "smooth" : "none",
    direction: DIRECTIONS[asNumber(f[9], "text direction")] ?? "ltr",
  };
  if (lineSpacing !== 0) text.leading = points(asNumber(f[13], "line height") + lineSpacing);
  if (mark[0] === "b") text.box = { x, y, width, height };
  else if (mark[0] === "p") text.position = { x: x + Number(mark[1]), y: y + Number(mark[2]) };
  else text.position = { x, y: y + asNumber(f[12], "ascent") };
  // GIMP's language follows the locale ("C" here) unless a call set one.
  if (language !== "" && language !== "C" && language !== "POSIX") text.language = language;
  return text;
}
