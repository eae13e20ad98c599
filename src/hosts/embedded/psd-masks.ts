/**
 * Layer masks between ag-psd's records and the model. With a vector mask, Photoshop stores its rasterisation as
 * the first mask (flagged as made from vector data) and the user's own mask, if any, as the "real" mask;
 * otherwise the first mask is the user mask. Densities and feathers are parameters of the first mask.
 */
import type { Layer, LayerMaskData } from "ag-psd";
import type { EmbeddedLayer, LayerMask } from "./document.js";
import { bakesVectorMask } from "./masks.js";
import type { PsdLayerRecord } from "./psd-records.js";
import { rasterizeVectorMask } from "./vector-mask.js";

/** A record's masks as the model keeps them. */
export function fromPsdMasks(layer: Layer): { mask?: LayerMask; vectorMask?: LayerMask } {
  const first = layer.mask;
  if (!first) return {};
  const user = { density: first.userMaskDensity, feather: first.userMaskFeather };
  if (first.fromVectorData) {
    const vectorMask = fromPsdMask(first, { density: first.vectorMaskDensity, feather: first.vectorMaskFeather, disabled: layer.vectorMask?.disable });
    const mask = layer.realMask ? fromPsdMask(layer.realMask, { ...user, disabled: layer.realMask.disabled, unlinked: layer.realMask.positionRelativeToLayer }) : undefined;
    return { ...(vectorMask ? { vectorMask } : {}), ...(mask ? { mask } : {}) };
  }
  const mask = fromPsdMask(first, { ...user, disabled: first.disabled, unlinked: first.positionRelativeToLayer });
  return mask ? { mask } : {};
}

/**
 * A PSD mask as the model's one-byte-per-pixel mask (ag-psd hands it over as grey RGBA). An empty mask that lets
 * everything through is no mask.
 */
function fromPsdMask(
  mask: LayerMaskData,
  options: { density?: number | undefined; feather?: number | undefined; disabled?: boolean | undefined; unlinked?: boolean | undefined },
): LayerMask | undefined {
  const defaultColor = (mask.defaultColor ?? 0) >= 128 ? 255 : 0;
  const image = mask.imageData;
  const x = mask.left ?? 0;
  const y = mask.top ?? 0;
  const extras = {
    ...(options.disabled === true ? { disabled: true } : {}),
    // Photoshop sets "position relative to layer" on a mask unlinked from its layer.
    ...(options.unlinked === true ? { unlinked: true } : {}),
    ...(options.density !== undefined && options.density < 1 ? { density: Math.round(Math.max(0, options.density) * 255) } : {}),
    ...(options.feather !== undefined && options.feather > 0 ? { feather: options.feather } : {}),
  };
  if (!image || image.width === 0 || image.height === 0) {
    return defaultColor === 255 ? undefined : { x, y, width: 0, height: 0, data: new Uint8Array(0), defaultColor, ...extras };
  }
  const data = new Uint8Array(image.width * image.height);
  for (let i = 0; i < data.length; i++) data[i] = image.data[i * 4] ?? 0;
  return { x, y, width: image.width, height: image.height, data, defaultColor, ...extras };
}

/** A model mask as ag-psd's mask record: `base`'s flags, the mask's rectangle and pixels. */
function toPsdMask(mask: LayerMask, base: Omit<LayerMaskData, "imageData" | "canvas"> = {}): LayerMaskData {
  const { x, y, width, height, defaultColor } = mask;
  const out: LayerMaskData = { ...base, left: x, top: y, right: x + width, bottom: y + height, defaultColor };
  if (width === 0 || height === 0) return out;
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < mask.data.length; i++) {
    const v = mask.data[i] ?? 0;
    rgba[i * 4] = v;
    rgba[i * 4 + 1] = v;
    rgba[i * 4 + 2] = v;
    rgba[i * 4 + 3] = 255;
  }
  out.imageData = { width, height, data: rgba };
  return out;
}

/** The masks of a model layer as ag-psd's `mask` and `realMask` (see {@link fromPsdMasks}). */
export function toPsdMasks(layer: EmbeddedLayer): Pick<Layer, "mask" | "realMask"> {
  const record = layer.record;
  const params = {
    ...(layer.mask?.density !== undefined ? { userMaskDensity: layer.mask.density / 255 } : {}),
    ...(layer.mask?.feather !== undefined ? { userMaskFeather: layer.mask.feather } : {}),
    ...(layer.vectorMask?.density !== undefined ? { vectorMaskDensity: layer.vectorMask.density / 255 } : {}),
    ...(layer.vectorMask?.feather !== undefined ? { vectorMaskFeather: layer.vectorMask.feather } : {}),
  };
  const base = (from: PsdLayerRecord["mask"]): Omit<LayerMaskData, "imageData" | "canvas"> => {
    const { userMaskDensity: _a, userMaskFeather: _b, vectorMaskDensity: _c, vectorMaskFeather: _d, ...flags } = from ?? {};
    return flags;
  };
  if (layer.vectorMask) {
    const mask = toPsdMask(layer.vectorMask, { ...base(record?.mask), fromVectorData: true, ...params });
    if (layer.mask) return { mask, realMask: toPsdMask(layer.mask, { ...base(record?.realMask), ...userFlags(layer.mask) }) };
    return record?.realMask ? { mask, realMask: { ...record.realMask } } : { mask };
  }
  if (layer.mask) return { mask: toPsdMask(layer.mask, { ...base(record?.mask), ...userFlags(layer.mask), ...params }) };
  // An empty mask that lets everything through (what Photoshop gives every new fill or adjustment layer) is no
  // mask to the model, but the file had one: write it back as it was.
  return record?.mask && !record.mask.fromVectorData ? { mask: { ...record.mask } } : {};
}

/** The flags of a user mask the model owns. */
function userFlags(mask: LayerMask): Pick<LayerMaskData, "disabled" | "fromVectorData" | "positionRelativeToLayer"> {
  return { disabled: mask.disabled === true, fromVectorData: false, positionRelativeToLayer: mask.unlinked === true };
}

/**
 * Gives every layer whose vector mask the file did not cache on its own its rasterisation (`vectorShape`): Photoshop
 * caches a vector mask's pixels, but multiplied with the user mask when a layer has both, and not at all in some
 * files. A shape or fill layer with pixels of its own has its path drawn into them already and is left alone.
 * Density and feather stay parameters of the mask (applied when rendering).
 */
export function rasteriseVectorMasks(layers: readonly EmbeddedLayer[], canvas: { width: number; height: number }): void {
  for (const layer of layers) {
    if (layer.kind === "group") rasteriseVectorMasks(layer.children, canvas);
    const path = layer.record?.vectorMask;
    if (path === undefined || path.disable === true) continue;
    if (layer.vectorMask !== undefined && layer.mask === undefined) continue;
    if (layer.kind !== "group" && bakesVectorMask(layer)) continue;
    const stored = layer.vectorMask;
    layer.vectorShape = {
      ...rasterizeVectorMask(path, canvas),
      ...(stored?.density !== undefined ? { density: stored.density } : {}),
      ...(stored?.feather !== undefined ? { feather: stored.feather } : {}),
    };
  }
}
