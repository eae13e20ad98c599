import { BridgeError } from "../../../protocol/errors.js";
import type { Rgba } from "../../host.js";
import type { SelectionMode } from "../../edits.js";
import { renderDocument, renderLayer } from "../composite.js";
import type { EmbeddedDocument } from "../document.js";
import { rgbaBytes } from "../memory.js";
import { type SelectionMask, selectionMask, setSelectionMask } from "../selection.js";
import { modifySelection, selectionChangeBytes } from "../selection-modify.js";
import { requireLayer } from "../tree.js";
import { ROW_BAND } from "../work.js";
import type { EditContext, EditHandlers } from "./context.js";

type Context = EditContext & { readonly doc: EmbeddedDocument };

/** A box of canvas pixels. */
interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

const canvasOf = (doc: EmbeddedDocument): Box => ({ x: 0, y: 0, width: doc.width, height: doc.height });

/** The mask's value at a canvas pixel (0 outside it). */
function at(mask: SelectionMask, x: number, y: number): number {
  const mx = x - mask.x;
  const my = y - mask.y;
  return mx >= 0 && my >= 0 && mx < mask.width && my < mask.height ? (mask.data[my * mask.width + mx] as number) : 0;
}

/**
 * A new selection combined with the current one: `replace` takes it, `add` the larger of the two values,
 * `subtract` what the new one leaves of the current, `intersect` their product.
 */
function combine(current: SelectionMask | null, incoming: SelectionMask | null, mode: SelectionMode, check: () => void): SelectionMask | null {
  if (mode === "replace" || current === null) return mode === "replace" || mode === "add" ? incoming : null;
  if (incoming === null) return mode === "intersect" ? null : current;
  const box: Box =
    mode === "add"
      ? (() => {
          const x = Math.min(current.x, incoming.x);
          const y = Math.min(current.y, incoming.y);
          return { x, y, width: Math.max(current.x + current.width, incoming.x + incoming.width) - x, height: Math.max(current.y + current.height, incoming.y + incoming.height) - y };
        })()
      : current;
  const data = new Uint8Array(box.width * box.height);
  for (let y = 0; y < box.height; y++) {
    if (y % ROW_BAND === 0) check();
    for (let x = 0; x < box.width; x++) {
      const a = at(current, box.x + x, box.y + y);
      const b = at(incoming, box.x + x, box.y + y);
      data[y * box.width + x] = mode === "add" ? Math.max(a, b) : mode === "subtract" ? Math.round((a * (255 - b)) / 255) : Math.round((a * b) / 255);
    }
  }
  return { ...box, data };
}

/** Replaces the selection with `mask` combined by `mode`, and reports it. */
function select(context: Context, mask: SelectionMask | null, mode: SelectionMode): void {
  const check = (): void => context.checkpoint(context.call);
  setSelectionMask(context.doc, combine(selectionMask(context.doc), mask, mode, check), check);
  context.changed(context.doc, { selection: true });
}

/** Charges the masks a selection edit makes over the canvas (each a byte per pixel) before they are made. */
function charge(context: Context, what: string, bytes: number): void {
  context.memory.check(what, bytes, { width: context.doc.width, height: context.doc.height });
}

/** A raster sampled by canvas pixel: straight RGBA, every fully transparent pixel read as (0, 0, 0, 0). */
interface Sampled {
  readonly data: Uint8ClampedArray;
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/** What `selection:fromColor` samples: the composite, or one layer's own pixels (a group: its contents). */
function sampledPixels(context: Context, layerId: number | undefined, merged: boolean): Sampled | null {
  const { doc } = context;
  const work = { rows: (): void => context.checkpoint(context.call) };
  if (merged || layerId === undefined) {
    charge(context, "Sampling the image", rgbaBytes(doc.width, doc.height));
    return { ...renderDocument(doc, work), left: 0, top: 0 };
  }
  const layer = requireLayer(doc, layerId).layer;
  if (layer.kind !== "group") return layer;
  const rendered = renderLayer(layer, work);
  return rendered === null ? null : { ...rendered.raster, left: rendered.bounds.left, top: rendered.bounds.top };
}

/** The colour of a canvas pixel in the sampled pixels (transparent outside them). */
function colourAt(pixels: Sampled | null, x: number, y: number): Rgba {
  if (pixels === null) return [0, 0, 0, 0];
  const px = x - pixels.left;
  const py = y - pixels.top;
  if (px < 0 || py < 0 || px >= pixels.width || py >= pixels.height) return [0, 0, 0, 0];
  const i = (py * pixels.width + px) * 4;
  const a = pixels.data[i + 3] as number;
  return a === 0 ? [0, 0, 0, 0] : [pixels.data[i] as number, pixels.data[i + 1] as number, pixels.data[i + 2] as number, a];
}

/**
 * Pixels whose every channel is within `tolerance` of `colour`: everywhere on the canvas, or only the region
 * 4-connected to `from`.
 */
function colourMask(context: Context, pixels: Sampled | null, colour: Rgba, tolerance: number, from: { x: number; y: number } | undefined): SelectionMask {
  const { width, height } = context.doc;
  const check = (): void => context.checkpoint(context.call);
  const data = new Uint8Array(width * height);
  const matches = (x: number, y: number): boolean => {
    const c = colourAt(pixels, x, y);
    return (
      Math.abs(c[0] - colour[0]) <= tolerance && Math.abs(c[1] - colour[1]) <= tolerance && Math.abs(c[2] - colour[2]) <= tolerance && Math.abs(c[3] - colour[3]) <= tolerance
    );
  };
  if (from === undefined) {
    for (let y = 0; y < height; y++) {
      if (y % ROW_BAND === 0) check();
      for (let x = 0; x < width; x++) if (matches(x, y)) data[y * width + x] = 255;
    }
    return { x: 0, y: 0, width, height, data };
  }
  // A scanline flood: each span of matching pixels is filled whole, and the rows above and below it are queued.
  const stack: number[] = [from.x, from.y];
  let spans = 0;
  while (stack.length > 0) {
    const y = stack.pop()!;
    const x = stack.pop()!;
    if (data[y * width + x] !== 0 || !matches(x, y)) continue;
    if (++spans % (ROW_BAND * 64) === 0) check();
    let left = x;
    while (left > 0 && data[y * width + left - 1] === 0 && matches(left - 1, y)) left--;
    let right = x + 1;
    while (right < width && data[y * width + right] === 0 && matches(right, y)) right++;
    data.fill(255, y * width + left, y * width + right);
    for (const ny of [y - 1, y + 1]) {
      if (ny < 0 || ny >= height) continue;
      let inRun = false;
      for (let nx = left; nx < right; nx++) {
        const open = data[ny * width + nx] === 0 && matches(nx, ny);
        if (open && !inRun) stack.push(nx, ny);
        inRun = open;
      }
    }
  }
  return { x: 0, y: 0, width, height, data };
}

/** Selection edits: all, clear, invert, modify, from a layer, from a colour. */
export const selectionEdits: EditHandlers = {
  "selection:all": (context) => {
    const { doc } = context;
    charge(context, "Selecting all", doc.width * doc.height);
    select(context, { ...canvasOf(doc), data: new Uint8Array(doc.width * doc.height).fill(255) }, "replace");
    return undefined;
  },

  "selection:clear": (context) => {
    select(context, null, "replace");
    return undefined;
  },

  "selection:invert": (context) => {
    const { doc } = context;
    charge(context, "Inverting the selection", doc.width * doc.height);
    const current = selectionMask(doc);
    const data = new Uint8Array(doc.width * doc.height);
    for (let y = 0; y < doc.height; y++) {
      if (y % ROW_BAND === 0) context.checkpoint(context.call);
      for (let x = 0; x < doc.width; x++) data[y * doc.width + x] = 255 - (current === null ? 0 : at(current, x, y));
    }
    // Everything selected inverts to nothing: the selection is cleared.
    select(context, { ...canvasOf(doc), data }, "replace");
    return undefined;
  },

  "selection:modify": (context, edit) => {
    const { doc } = context;
    const current = selectionMask(doc);
    // The methods refuse an empty selection; another client may have cleared it since they looked.
    if (current === null) throw new BridgeError("BAD_REQUEST", `Nothing is selected to ${edit.how}`, { details: { documentId: doc.id, [edit.how]: edit.pixels } });
    charge(context, `Changing the selection (${edit.how})`, selectionChangeBytes(doc));
    const check = (): void => context.checkpoint(context.call);
    select(context, modifySelection(current, edit.how, edit.pixels, { width: doc.width, height: doc.height, check }), "replace");
    return undefined;
  },

  "selection:fromLayer": (context, edit) => {
    const { doc } = context;
    const layer = requireLayer(doc, edit.layerId).layer;
    charge(context, "Selecting a layer's pixels", doc.width * doc.height + (layer.kind === "group" ? rgbaBytes(doc.width, doc.height) : 0));
    let pixels: Sampled | null;
    if (layer.kind === "group") {
      const rendered = renderLayer(layer, { rows: () => context.checkpoint(context.call) });
      pixels = rendered === null ? null : { ...rendered.raster, left: rendered.bounds.left, top: rendered.bounds.top };
    } else {
      pixels = layer.width > 0 && layer.height > 0 ? layer : null;
    }
    let mask: SelectionMask | null = null;
    if (pixels !== null) {
      const data = new Uint8Array(pixels.width * pixels.height);
      for (let i = 0; i < data.length; i++) data[i] = pixels.data[i * 4 + 3] as number;
      mask = { x: pixels.left, y: pixels.top, width: pixels.width, height: pixels.height, data };
    }
    select(context, mask, edit.mode);
    return undefined;
  },

  "selection:fromColor": (context, edit) => {
    const { doc } = context;
    charge(context, "Selecting by colour", doc.width * doc.height);
    const pixels = sampledPixels(context, edit.layerId, edit.sampleMerged);
    const point = edit.point;
    const colour = edit.color ?? colourAt(pixels, point!.x, point!.y);
    select(context, colourMask(context, pixels, colour, edit.tolerance, edit.contiguous ? point : undefined), edit.mode);
    return undefined;
  },
};
