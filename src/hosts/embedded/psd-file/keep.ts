/**
 * What of an opened PSD is unchanged at save time, from the editor's model: a layer is unchanged while it holds
 * the very pixel buffer (and mask) that was read, since the model replaces buffers and never mutates them; the
 * composite is unchanged while every layer is and nothing that shapes the picture moved.
 */
import type { KeepSets } from "./original.js";
import type { ReadablePsd } from "./readable.js";

/**
 * An opened PSD as a document keeps it: its mode, the conversion, the original file (for verbatim channels and
 * resources; the readable copy is not kept) and what was read.
 */
export interface PsdFileSource {
  readonly opened: Pick<ReadablePsd, "source" | "conversion" | "original">;
  /** Pixel buffers, masks and records as read, each with the id of the layer that held it. */
  readonly read: WeakMap<object, number>;
  /** The picture-shaping state at open (see {@link pictureKey}). */
  readonly picture: string;
}

/** The mask fields read here. */
interface KeptMask {
  readonly x: number;
  readonly y: number;
  readonly disabled?: boolean | undefined;
  readonly density?: number | undefined;
}

/**
 * The parts of the editor's layers this module reads, structurally (the byte layer knows nothing of the model): a
 * group has `children`, any other layer its pixel buffer in `data` and its rectangle.
 */
export type KeptLayer = {
  readonly id: number;
  readonly kind: string;
  readonly visible: boolean;
  readonly opacity: number;
  readonly blendMode: string;
  readonly clipping?: boolean | undefined;
  readonly knockout?: boolean | undefined;
  readonly fillOpacity?: number | undefined;
  readonly mask?: KeptMask | undefined;
  readonly vectorMask?: KeptMask | undefined;
  readonly record?: object | undefined;
} & ({ readonly kind: "group"; readonly children: readonly KeptLayer[] } | { readonly left: number; readonly top: number; readonly width: number; readonly height: number; readonly data: object });

/** A document as this module reads it. */
interface KeptDocument {
  readonly width: number;
  readonly height: number;
  readonly layers: readonly KeptLayer[];
}

function walk(layers: readonly KeptLayer[], visit: (layer: KeptLayer) => void): void {
  for (const layer of layers) {
    visit(layer);
    if ("children" in layer) walk(layer.children, visit);
  }
}

/**
 * Everything besides pixel buffers that changes the composite: canvas, order, visibility, opacity, modes, offsets,
 * masks. A layer field added to the model that changes the picture belongs here, or an edited document would be
 * saved with the composite it was opened with.
 */
function pictureKey(doc: KeptDocument): string {
  const parts: unknown[] = [doc.width, doc.height];
  walk(doc.layers, (layer) => {
    const { id, kind, visible, opacity, blendMode, clipping, fillOpacity, knockout } = layer;
    const place = "children" in layer ? [layer.children.length] : [layer.left, layer.top, layer.width, layer.height];
    const masks = [layer.mask, layer.vectorMask].map((mask) => (mask === undefined ? "" : `${mask.x},${mask.y},${mask.disabled === true},${mask.density ?? 255}`));
    parts.push([id, kind, visible, opacity, blendMode, clipping === true, knockout === true, fillOpacity ?? 255, ...masks, ...place]);
  });
  return JSON.stringify(parts);
}

/** Remembers what was read, right after a PSD is parsed into the model. */
export function rememberRead(readable: ReadablePsd, doc: KeptDocument): PsdFileSource {
  const read = new WeakMap<object, number>();
  walk(doc.layers, (layer) => {
    if (layer.record) read.set(layer.record, layer.id);
    if (layer.mask) read.set(layer.mask, layer.id);
    if (layer.vectorMask) read.set(layer.vectorMask, layer.id);
    if (!("children" in layer)) read.set(layer.data, layer.id);
  });
  const { source, conversion, original } = readable;
  return { opened: { source, conversion, original }, read, picture: pictureKey(doc) };
}

/** The layers still holding what was read (and every group), and whether the picture is the one that was opened. */
export function keepSets(source: PsdFileSource, doc: KeptDocument): KeepSets {
  const layerIds = new Set<number>();
  let all = true;
  walk(doc.layers, (layer) => {
    // A group's record holds no pixels: its (empty) channels are always the ones read.
    if ("children" in layer) {
      layerIds.add(layer.id);
      return;
    }
    const unchanged = (mask: object | undefined): boolean => mask === undefined || source.read.get(mask) === layer.id;
    const same = source.read.get(layer.data) === layer.id && unchanged(layer.mask) && unchanged(layer.vectorMask);
    if (same) layerIds.add(layer.id);
    else all = false;
  });
  return { layerIds, composite: all && pictureKey(doc) === source.picture };
}
