/*
 * How the fake Photoshop writes and reads its documents as PSD files. Photoshop saves a document natively
 * (Document.saveAs with PhotoshopSaveOptions: "Options for saving a document in Photoshop format", which keeps the
 * layers) and app.open reads it back with the same layers: groups and what is in them, each layer's position,
 * opacity and visibility, and the Background layer. The fake writes its solid rectangles as layer records with
 * their pixels (ag-psd) and reads them back the same way: a layer's colour is the colour of its middle pixel.
 * A colour fill layer is written and read as its fill record. Each layer's blend mode is written and read back
 * (the Layers panel's blending mode is part of the layer record Photoshop saves: "Adobe Photoshop File Formats
 * Specification", Layer records, "Blend mode key"). Text, shape and other kinds come back as pixel layers; masks are
 * not written. A layer read keeps the id its record holds (the Layer ID additional information, `lyid`), and the
 * file's layer comps are read (image resource 1065, Layer Comps: each comp's id, name, comment and what it captures;
 * and each layer's comp settings in its metadata: the comps that show or hide it, and its offset from where it is).
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { Layer } from "ag-psd";
import { agPsd, ensureCanvasFactory } from "../../../src/hosts/embedded/psd.js";
import type { FakeComp, FakeDocument } from "./model.js";
import type { FakeLayer, Rgba } from "./layers.js";

/**
 * Blend modes by ag-psd's names (the spaced words of the Layers panel) and the model's (the ActionManager's ids):
 * the same words run together in camel case, but for the two the ActionManager prefixes.
 */
const BLEND_RECORD: Record<string, NonNullable<Layer["blendMode"]>> = { blendSubtraction: "subtract", blendDivide: "divide" };
const recordBlend = (id: string): NonNullable<Layer["blendMode"]> =>
  BLEND_RECORD[id] ?? (id.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`) as NonNullable<Layer["blendMode"]>);
const modelBlend = (mode: string): string =>
  Object.keys(BLEND_RECORD).find((id) => BLEND_RECORD[id] === mode) ?? mode.replace(/ (\w)/g, (_, c: string) => c.toUpperCase());

/** A layer's record: a group with its children, a colour fill layer's fill, or the layer's pixels at its position. */
function recordOf(l: FakeLayer): Layer {
  const base: Layer = { name: l.name, hidden: !l.visible, opacity: l.opacity / 100, blendMode: recordBlend(l.blendMode ?? (l.children ? "passThrough" : "normal")) };
  if (l.children) return { ...base, opened: true, children: l.children.map(recordOf).reverse() };
  if (l.kind === "fill") return { ...base, vectorFill: { type: "color", color: { r: l.color[0], g: l.color[1], b: l.color[2] } } };
  const [width, height] = [Math.max(0, l.right - l.left), Math.max(0, l.bottom - l.top)];
  if (width === 0 || height === 0) return base;
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set(l.color, i);
  return { ...base, left: l.left, top: l.top, imageData: { width, height, data } };
}

/** Writes the document's layer tree as a PSD (a PSB with `psb`). */
export function writeFakePsd(d: FakeDocument, path: string, psb = false): void {
  writeFileSync(path, agPsd().writePsdBuffer({ width: d.width, height: d.height, children: d.layers.map(recordOf).reverse() }, { psb }));
}

/**
 * The document a PSD holds: its size and its layer tree, top-most first, with fresh ids. A bottom layer named
 * "Background" that covers the canvas is the Background layer (what Photoshop writes for one).
 */
export function readFakePsd(path: string, newId: () => number): Pick<FakeDocument, "width" | "height" | "layers" | "comps"> {
  // ag-psd wants a canvas factory even when it hands pixels out as ImageData. The factory is set on the module the
  // editor's code loads (`agPsd()`), and the fake reads through that same module, so the two cannot part. (Once, in
  // a whole run, a read through this file's own import of ag-psd found no factory after this call.)
  ensureCanvasFactory();
  const psd = agPsd().readPsd(readFileSync(path), { skipCompositeImageData: true, skipThumbnail: true, useImageData: true });
  const settings: Array<{ layer: FakeLayer; settings: NonNullable<Layer["comps"]>["settings"] }> = [];
  const layerOf = (r: Layer): FakeLayer => {
    const layer = recordLayer(r);
    if (r.comps !== undefined) settings.push({ layer, settings: r.comps.settings });
    return layer;
  };
  const recordLayer = (r: Layer): FakeLayer => {
    const base: Pick<FakeLayer, "id" | "name" | "visible" | "opacity" | "blendMode"> = { id: r.id ?? newId(), name: r.name ?? "Layer", visible: r.hidden !== true, opacity: Math.round((r.opacity ?? 1) * 100) };
    // A record's blend mode comes back as the layer's; the default ones (normal, a group's pass through) stay unset.
    const mode = r.blendMode === undefined ? undefined : modelBlend(r.blendMode);
    if (mode !== undefined && mode !== (r.children ? "passThrough" : "normal")) base.blendMode = mode;
    if (r.children) return { ...base, kind: "group", left: 0, top: 0, right: 0, bottom: 0, color: [0, 0, 0, 0], children: r.children.map(layerOf).reverse() };
    // A colour fill without a vector mask is a fill layer: it fills the whole canvas, and Photoshop reports the
    // canvas as its bounds (a fill layer made without a selection fills the entire document; "If you don't want a
    // fill layer to fill your entire document, then make a selection before creating one, which will create a
    // layer mask", Adobe Photoshop CS2 guide at adobephotoshopcs2.info, "Fill Layers"). A fill with a vector mask
    // is a shape layer, which the fake does not read from a PSD.
    const fill = r.vectorFill;
    if (fill?.type === "color" && r.vectorMask === undefined && "r" in fill.color) {
      const { r: red, g, b } = fill.color;
      return { ...base, kind: "fill", left: 0, top: 0, right: psd.width, bottom: psd.height, color: [Math.round(red), Math.round(g), Math.round(b), 255] };
    }
    const [left, top, right, bottom] = [r.left ?? 0, r.top ?? 0, r.right ?? 0, r.bottom ?? 0];
    const image = r.imageData;
    const middle = image && image.width > 0 ? (Math.floor(image.height / 2) * image.width + Math.floor(image.width / 2)) * 4 : -1;
    const color: Rgba = middle < 0 ? [0, 0, 0, 0] : [image!.data[middle]!, image!.data[middle + 1]!, image!.data[middle + 2]!, image!.data[middle + 3]!];
    return { ...base, kind: "pixel", left, top, right, bottom, color };
  };
  const layers = (psd.children ?? []).map(layerOf).reverse();
  const bottom = layers.at(-1);
  if (bottom && bottom.kind === "pixel" && bottom.name === "Background" && bottom.left <= 0 && bottom.top <= 0 && bottom.right >= psd.width && bottom.bottom >= psd.height) {
    bottom.kind = "background";
  }
  // Capture bits of a comp: 1 visibility, 2 position, 4 appearance.
  const comps = (psd.imageResources?.layerComps?.list ?? []).map((c): FakeComp => {
    const info = Number(c.capturedInfo);
    const states: FakeComp["states"] = {};
    for (const { layer, settings: list } of settings) {
      const state = list.find((entry) => entry.compList.includes(c.id));
      if (state !== undefined) states[layer.id] = { visible: state.enabled ?? layer.visible, left: layer.left + Math.round(state.offset?.x ?? 0), top: layer.top + Math.round(state.offset?.y ?? 0) };
    }
    return { name: c.name, comment: c.comment ?? "", visibility: (info & 1) !== 0, position: (info & 2) !== 0, appearance: (info & 4) !== 0, states };
  });
  return { width: psd.width, height: psd.height, layers, ...(comps.length > 0 ? { comps } : {}) };
}
