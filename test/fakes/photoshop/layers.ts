import type { StoredDescriptor } from "./extendscript/action.js";

/*
 * The fake Photoshop's layers: solid-colour rectangles in a tree, walked in Photoshop's generator index space
 * (bottom-up, a group takes its own slot above its children and a divider slot below them), and
 * rendered as pixmaps with nearest-neighbour sampling.
 */

/**
 * `fill` is a fill layer (Layer > New Fill Layer: "Fill layers let you fill a layer with a solid color, a gradient,
 * or a pattern", Photoshop User Guide, "Adjustment and fill layers"), here a solid colour one over the canvas;
 * `shape` is a fill layer drawn through a vector mask (a path active when a fill layer is made gives it "a layer
 * clipping path instead of a layer mask", Photoshop 6.0 User Guide, "Creating adjustment layers or fill layers").
 */
export type Kind = "pixel" | "group" | "text" | "shape" | "fill" | "adjustment" | "smartObject" | "background";
export type Rgba = [number, number, number, number];
export type Bounds = { left: number; top: number; right: number; bottom: number };

export interface FakeLayer {
  id: number;
  name: string;
  kind: Kind;
  visible: boolean;
  opacity: number;
  left: number;
  top: number;
  right: number;
  bottom: number;
  color: Rgba;
  children?: FakeLayer[];
  /** The LayerKind Photoshop reports when `kind` alone does not say it (VIDEO, LAYER3D, CURVES…). */
  psKind?: string;
  /** The blend mode by its ActionManager id (`multiply`, `colorBurn`, `passThrough`…). @default normal (groups: passThrough) */
  blendMode?: string;
  /** Lock All. */
  locked?: boolean;
  /** Fill opacity, 0–100. @default 100 */
  fillOpacity?: number;
  /** The layer's pixel mask. */
  mask?: FakeMask;
  /** A text layer's TextItem, as scripts set it (dom-text.ts). */
  text?: FakeText;
  /**
   * A fill, shape or adjustment layer's content as the script made or set it: the content's class
   * (`solidColorLayer`, `gradientLayer`, `brightnessEvent`…) and its descriptor, read back as the layer's
   * `adjustment` list (action-get.ts).
   */
  content?: { class: string; settings: unknown };
  /** A smart object's placed-layer record (its `smartObjectMore`). */
  placed?: FakePlaced;
  /** The layer's style as the script set it: its `layerEffects` descriptor (action-effects.ts). */
  effects?: StoredDescriptor;
}

/**
 * A smart object's placed-layer record, as a PSD keeps it (Adobe Photoshop File Formats Specification, "Placed Layer
 * Data": the content's size and resolution, its transform as the frame's four corners, its non-affine transform, its
 * warp) and the file it holds. The layer's rectangle is the box around the corners.
 */
export interface FakePlaced {
  width: number;
  height: number;
  resolution: number;
  /** x, y of the top-left, top-right, bottom-right and bottom-left corners, in document pixels. */
  transform: number[];
  /** The same corners when the layer has no perspective. @default transform */
  nonAffineTransform?: number[];
  /** The warp's style (`warpNone`, `warpArc`, `warpCustom`…). @default warpNone */
  warp?: string;
  /** The file it holds: the name of the last file put into it. */
  file: string;
}

/** A text layer's settings, in the units the DOM takes them: points, pixels, thousandths of an em. */
export interface FakeText {
  contents: string;
  font: string;
  size: number;
  color: string;
  kind: "POINTTEXT" | "PARAGRAPHTEXT";
  position: [number, number];
  width: number;
  height: number;
  justification: string;
  useAutoLeading: boolean;
  leading: number;
  tracking: number;
  baselineShift: number;
  antiAlias: string;
}

/**
 * A layer mask: its settings as the Properties panel shows them, and what it reveals: everything, nothing, or a
 * box (a mask made from a rectangular selection).
 */
export interface FakeMask {
  enabled: boolean;
  linked: boolean;
  /** 0–100. */
  density: number;
  /** Pixels. */
  feather: number;
  reveals: "all" | "none" | Bounds;
}

/** The part of `b` an enabled mask lets through. */
function masked(b: Bounds, mask: FakeMask | undefined): Bounds {
  if (!mask?.enabled || mask.reveals === "all") return b;
  if (mask.reveals === "none") return { left: 0, top: 0, right: 0, bottom: 0 };
  const r = mask.reveals;
  const out = { left: Math.max(b.left, r.left), top: Math.max(b.top, r.top), right: Math.min(b.right, r.right), bottom: Math.min(b.bottom, r.bottom) };
  return out.right > out.left && out.bottom > out.top ? out : { left: 0, top: 0, right: 0, bottom: 0 };
}

/** A layer with its generator index and its depth in the tree. */
export interface Entry {
  layer: FakeLayer;
  index: number;
  depth: number;
}

/** Pixels as the fake sends them in an IMAGE message. */
export interface PixelSource {
  bounds: Bounds;
  width: number;
  height: number;
  argbAt(x: number, y: number): [number, number, number, number];
}

/** Every layer, top-most first (a group before its children), with its generator index. */
export function layerEntries(layers: FakeLayer[]): Entry[] {
  const slots = (ls: FakeLayer[]): number => ls.reduce((n, l) => n + (l.children ? 2 + slots(l.children) : 1), 0);
  const out: Entry[] = [];
  const walk = (ls: FakeLayer[], top: number, depth: number): number => {
    let index = top;
    for (const layer of ls) {
      out.push({ layer, index: index--, depth });
      if (layer.children) index = walk(layer.children, index, depth + 1) - 1;
    }
    return index;
  };
  walk(layers, slots(layers) - 1, 0);
  return out;
}

/**
 * A layer's bounds; a group's cover its children's, all zero when they are empty. An enabled mask cuts them to
 * what it reveals (the ActionManager's `bounds` counts the mask; `boundsNoMask` is the key that does not).
 */
export function layerBounds(layer: FakeLayer): Bounds {
  if (!layer.children) {
    const b = masked({ left: layer.left, top: layer.top, right: layer.right, bottom: layer.bottom }, layer.mask);
    return b.right > b.left && b.bottom > b.top ? b : { left: 0, top: 0, right: 0, bottom: 0 };
  }
  const parts = layer.children.map(layerBounds).filter((b) => b.right > b.left);
  if (parts.length === 0) return { left: 0, top: 0, right: 0, bottom: 0 };
  return {
    left: Math.min(...parts.map((b) => b.left)),
    top: Math.min(...parts.map((b) => b.top)),
    right: Math.max(...parts.map((b) => b.right)),
    bottom: Math.max(...parts.map((b) => b.bottom)),
  };
}

/** A layer as `_lib.jsx`'s `__layerInfo` reports it. */
export function layerInfo(entry: Entry, all: Entry[], children: boolean): Record<string, unknown> {
  const { layer } = entry;
  const b = layerBounds(layer);
  const out: Record<string, unknown> = {
    id: layer.id,
    index: entry.index,
    name: layer.name,
    kind: layer.kind,
    visible: layer.visible,
    opacity: layer.opacity,
    blendMode: "normal",
    bounds: b,
    rect: { x: b.left, y: b.top, width: b.right - b.left, height: b.bottom - b.top },
    clipped: false,
  };
  if (children && layer.children) {
    out["children"] = layer.children.map((child) => layerInfo(all.find((e) => e.layer === child)!, all, true));
  }
  return out;
}

/** The sibling list that holds `child`. */
export function parentList(layers: FakeLayer[], child: FakeLayer): FakeLayer[] {
  if (layers.includes(child)) return layers;
  for (const l of layers) {
    if (l.children) {
      const found = parentList(l.children, child);
      if (found.includes(child)) return found;
    }
  }
  return layers;
}

export function isInside(group: FakeLayer, layer: FakeLayer): boolean {
  return (group.children ?? []).some((c) => c === layer || isInside(c, layer));
}

/**
 * The layers (top-most first) over `b`, scaled by `scale`, as they are now: each layer's box and colour are read once
 * here, not for every pixel (an export reads every pixel of the canvas).
 */
export function render(b: Bounds, topFirst: FakeLayer[], scale: number): PixelSource {
  const width = Math.max(0, Math.round((b.right - b.left) * scale));
  const height = Math.max(0, Math.round((b.bottom - b.top) * scale));
  const painted = topFirst
    .filter((l) => l.color[3] > 0)
    .map((l) => ({ box: layerBounds(l), argb: [Math.round((l.color[3] * l.opacity) / 100), l.color[0], l.color[1], l.color[2]] as [number, number, number, number] }));
  const transparent: [number, number, number, number] = [0, 0, 0, 0];
  return {
    bounds: b,
    width,
    height,
    argbAt: (x, y) => {
      const dx = b.left + (x + 0.5) / scale;
      const dy = b.top + (y + 0.5) / scale;
      // The top-most layer over the point shows.
      for (const { box, argb } of painted) if (dx >= box.left && dx < box.right && dy >= box.top && dy < box.bottom) return argb;
      return transparent;
    },
  };
}
