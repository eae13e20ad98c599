/*
 * How the fake Photoshop writes and reads its documents as PSD files. Photoshop saves a document natively
 * (Document.saveAs with PhotoshopSaveOptions: "Options for saving a document in Photoshop format", which keeps the
 * layers) and app.open reads it back with the same layers: groups and what is in them, each layer's position,
 * opacity and visibility, and the Background layer. The fake writes its solid rectangles as layer records with
 * their pixels (ag-psd) and reads them back the same way: a layer's colour is the colour of its middle pixel.
 * Text, shape and other kinds come back as pixel layers, blend modes and masks are not written.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { type Layer, readPsd, writePsdBuffer } from "ag-psd";
import { ensureCanvasFactory } from "../../../src/hosts/embedded/psd.js";
import type { FakeDocument } from "./model.js";
import type { FakeLayer, Rgba } from "./layers.js";

/** A layer's record: a group with its children, or the layer's pixels at its position. */
function recordOf(l: FakeLayer): Layer {
  const base: Layer = { name: l.name, hidden: !l.visible, opacity: l.opacity / 100 };
  if (l.children) return { ...base, opened: true, children: l.children.map(recordOf).reverse() };
  const [width, height] = [Math.max(0, l.right - l.left), Math.max(0, l.bottom - l.top)];
  if (width === 0 || height === 0) return base;
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set(l.color, i);
  return { ...base, left: l.left, top: l.top, imageData: { width, height, data } };
}

/** Writes the document's layer tree as a PSD (a PSB with `psb`). */
export function writeFakePsd(d: FakeDocument, path: string, psb = false): void {
  writeFileSync(path, writePsdBuffer({ width: d.width, height: d.height, children: d.layers.map(recordOf).reverse() }, { psb }));
}

/**
 * The document a PSD holds: its size and its layer tree, top-most first, with fresh ids. A bottom layer named
 * "Background" that covers the canvas is the Background layer (what Photoshop writes for one).
 */
export function readFakePsd(path: string, newId: () => number): Pick<FakeDocument, "width" | "height" | "layers"> {
  // ag-psd wants a canvas factory even when it hands pixels out as ImageData.
  ensureCanvasFactory();
  const psd = readPsd(readFileSync(path), { skipCompositeImageData: true, skipThumbnail: true, useImageData: true });
  const layerOf = (r: Layer): FakeLayer => {
    const base = { id: newId(), name: r.name ?? "Layer", visible: r.hidden !== true, opacity: Math.round((r.opacity ?? 1) * 100) };
    if (r.children) return { ...base, kind: "group", left: 0, top: 0, right: 0, bottom: 0, color: [0, 0, 0, 0], children: r.children.map(layerOf).reverse() };
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
  return { width: psd.width, height: psd.height, layers };
}
