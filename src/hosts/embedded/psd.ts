/**
 * PSD open and save with ag-psd. Layer order differs: ag-psd lists children bottom-most first, the model
 * top-most first. Opacity is a byte in both, so values round-trip exactly.
 */
import { createRequire } from "node:module";
import type { BlendMode, Layer, Psd, ReadOptions } from "ag-psd";
import type { FileFeatures } from "../../files/index.js";
import { BridgeError } from "../../protocol/errors.js";
import { imageResourceIds, psdFeatures, psdLayoutProblem, psdSections, readPsdHeader } from "../_internal/psd-features.js";
import { DEFAULT_MAX_PSD_GROUP_DEPTH } from "./limits.js";
import type { DocumentContent, EmbeddedLayer, PixelLayer } from "./document.js";
import { fromPsdMasks, rasteriseVectorMasks } from "./psd-masks.js";
import { documentRecord, layerRecord, recordKind, type PsdDocumentRecord } from "./psd-records.js";
import { rememberRead, toReadablePsd } from "./psd-file/index.js";
import type { PsdFileSource } from "./psd-file/index.js";
import type { Stages } from "./work.js";
import { hasActiveEffects } from "./effects/index.js";

/** Blend mode names ag-psd can write; anything else is saved as `normal`. */
export const PSD_BLEND_MODES: ReadonlySet<string> = new Set<BlendMode>([
  "pass through", "normal", "dissolve", "darken", "multiply", "color burn", "linear burn", "darker color", "lighten",
  "screen", "color dodge", "linear dodge", "lighter color", "overlay", "soft light", "hard light", "vivid light",
  "linear light", "pin light", "hard mix", "difference", "exclusion", "subtract", "divide", "hue", "saturation",
  "color", "luminosity",
]);

type AgPsd = typeof import("ag-psd");
let agPsdModule: AgPsd | undefined;

/**
 * ag-psd, loaded the first time a PSD is opened or saved rather than when the editor starts: most editor processes
 * never touch a PSD, and loading it is a good part of an editor process's start. It is CommonJS, so `require`
 * loads it synchronously and the PSD code stays synchronous.
 */
export function agPsd(): AgPsd {
  agPsdModule ??= createRequire(import.meta.url)("ag-psd") as AgPsd;
  return agPsdModule;
}

let canvasReady = false;

/**
 * ag-psd needs a canvas factory even with `useImageData`; plain objects are enough because pixels stay in
 * `imageData` and no canvas is ever drawn on.
 */
export function ensureCanvasFactory(): void {
  if (canvasReady) return;
  agPsd().initializeCanvas(
    (width: number, height: number) => ({ width, height }) as never,
    (width: number, height: number) => ({ width, height, data: new Uint8ClampedArray(width * height * 4) }) as never,
  );
  canvasReady = true;
}

/** Document content read from a PSD/PSB, and what the file held that the model does not keep. */
export interface ParsedPsd {
  readonly content: DocumentContent;
  readonly features: FileFeatures;
  readonly psb: boolean;
  /** The document-level records the model does not own, for saving. */
  readonly record: PsdDocumentRecord;
  /** The file's mode and what was read, for saving back in its mode (see `psd-file/`). */
  readonly psdFile: PsdFileSource;
}

/** Pixels as plain arrays; the thumbnail kept as its JPEG bytes (saved again while the document is unchanged). */
const READ_OPTIONS = { useImageData: true, useRawThumbnail: true } as const;
/** The first, records-only pass skips what only the second needs. */
const RECORDS_ONLY = { ...READ_OPTIONS, skipThumbnail: true, skipLinkedFilesData: true, skipCompositeImageData: true, skipLayerImageData: true } as const;

/**
 * Reads a PSD/PSB file into document content. The header is checked before any pixel is decoded. A flattened
 * file (no layer records, only the merged image: what Photoshop writes for a flattened document) opens as one
 * `Background` layer holding that image.
 *
 * The layer records are read first without pixels: a layer (or its mask) above `maxPixels` is refused with
 * `PAYLOAD_TOO_LARGE` naming it, and groups nested deeper than `maxGroupDepth` with `BAD_REQUEST`, before any
 * layer buffer is allocated (a 100-byte file can declare a 22000×22000 layer).
 *
 * @throws BridgeError `BAD_REQUEST` when it is not a readable 8-bit RGB/grayscale PSD, holds neither layers
 * nor a merged image (`details.reason: "noImage"`) or nests groups too deep (`details: { depth, max }`),
 * `PAYLOAD_TOO_LARGE` above `maxPixels` (the canvas, or one layer: `details: { layer, layerIndex, width, height }`).
 * `stages` hears "building layers" once the file is parsed (a cancelled call throws from there).
 */
export function parsePsd(
  bytes: Buffer,
  options: {
    maxPixels: number;
    maxGroupDepth?: number | undefined;
    path: string;
    stages?: Stages | undefined;
    /** Told the bytes the layers' pixels and masks take (from their records), before any is allocated; throws to refuse. */
    charge?: ((bytes: number, details?: Record<string, unknown>) => void) | undefined;
  },
): ParsedPsd {
  const { path } = options;
  // A damaged outline is named (what, in which section, at which byte) before any reader trips on it.
  const problem = psdLayoutProblem(bytes);
  if (problem !== undefined) {
    throw new BridgeError("BAD_REQUEST", `${path} cannot be opened: ${problem.reason} (${problem.section}, byte ${problem.offset})`, {
      details: { path, ...problem },
    });
  }
  const header = readPsdHeader(bytes);
  if (header === undefined) throw new BridgeError("BAD_REQUEST", `Not a PSD file: ${path}`, { details: { path } });
  const { width, height } = header;
  if (width * height > options.maxPixels) {
    throw new BridgeError("PAYLOAD_TOO_LARGE", `Document of ${width}×${height} exceeds ${options.maxPixels} pixels`, {
      details: { path, width, height, maxPixels: options.maxPixels },
    });
  }
  // Any depth and colour mode is read from an 8-bit RGB or grayscale copy (or refused with the reason named). The
  // copy is charged first: at most the file again, or a canvas of RGBA where a palette or bits expand.
  if (header.depth !== 8 || (header.colorMode !== 1 && header.colorMode !== 3)) {
    options.charge?.(Math.max(bytes.length, width * height * 4), { stage: "conversion", depth: header.depth, colorMode: header.colorMode });
  }
  const readable = toReadablePsd(bytes, { path, maxPixels: options.maxPixels });
  bytes = Buffer.from(readable.bytes.buffer, readable.bytes.byteOffset, readable.bytes.byteLength);
  ensureCanvasFactory();
  const sections = psdSections(bytes);
  if (sections !== undefined && sections.layerSectionLength === 0 && sections.imageDataOffset >= bytes.length) {
    throw new BridgeError("BAD_REQUEST", `${path} holds neither layers nor a merged image`, { details: { path, reason: "noImage" } });
  }
  // Records only (no layer pixels): sizes and nesting are checked before ag-psd allocates a buffer per layer.
  const records = readOrRefuse(bytes, path, RECORDS_ONLY);
  const declared = checkLayerRecords(records.children ?? [], { path, maxPixels: options.maxPixels, maxGroupDepth: options.maxGroupDepth ?? DEFAULT_MAX_PSD_GROUP_DEPTH });
  // A flattened file's picture is its merged image, one RGBA canvas.
  const pixelBytes = isFlattened(records.children ?? []) ? width * height * 4 : declared;
  options.charge?.(pixelBytes, { stage: "layers", width, height });
  let psd = readOrRefuse(bytes, path, { ...READ_OPTIONS, skipCompositeImageData: true });
  options.stages?.stage("building layers");
  const ids = assignLayerIds(psd.children ?? []);
  // What ag-psd misreads is taken from the bytes, by the ids the readable copy gave every record.
  const restrictions = (id: number): readonly number[] | undefined => readable.original.layers.get(id)?.restrictedChannels;
  let layers = (psd.children ?? []).slice().reverse().map((layer) => fromPsdLayer(layer, ids, restrictions));
  if (isFlattened(psd.children ?? [])) {
    // The picture is only in the merged image section, read now (a layered file never pays for it).
    const merged = readMergedImage(bytes);
    if (merged === undefined) {
      throw new BridgeError("BAD_REQUEST", `${path} holds neither layers nor a merged image`, { details: { path, reason: "noImage" } });
    }
    psd = merged;
    const image = merged.imageData!;
    const data = image.data instanceof Uint8ClampedArray ? image.data : Uint8ClampedArray.from(image.data);
    layers = [{ id: 1, kind: "background", name: "Background", visible: true, opacity: 255, blendMode: "normal", left: 0, top: 0, width: image.width, height: image.height, data }];
  }
  const bottom = layers[layers.length - 1];
  // A flattened bottom layer named "Background" is what Photoshop writes for a background layer.
  if (bottom && bottom.kind === "pixel" && bottom.name === "Background") layers[layers.length - 1] = { ...bottom, kind: "background" };
  const resolution = psd.imageResources?.resolutionInfo?.horizontalResolution;
  // Above every id of the file, the hidden records that close groups included: a new layer given a divider's id
  // would be matched to that divider's record on save and written as a group end, leaving a file nobody can read.
  const nextLayerId = Math.max(0, ...ids.values(), ...layers.map((layer) => layer.id), ...readable.original.layers.keys()) + 1;
  const first = layers[0];
  const content: DocumentContent = {
    width: psd.width,
    height: psd.height,
    resolution: resolution && resolution > 0 ? resolution : 72,
    layers,
    nextLayerId,
    activeLayerIds: first ? [first.id] : [],
  };
  const { globalAngle, globalAltitude } = psd.imageResources ?? {};
  if (globalAngle !== undefined) content.globalLight = { angle: globalAngle, altitude: globalAltitude ?? 30 };
  if (psd.patterns !== undefined && psd.patterns.length > 0) content.patterns = psd.patterns;
  if (psd.imageResources?.layerComps !== undefined) content.layerComps = psd.imageResources.layerComps;
  if (readable.source.opensAs === 1) content.grayscale = true;
  const { colorModeName, depth } = readable.source;
  if (colorModeName !== "RGB" || depth !== 8) content.sourceColor = { mode: colorModeName.toLowerCase(), depth };
  rasteriseVectorMasks(layers, { width: psd.width, height: psd.height });
  const features = psdFeatures(psd, header, imageResourceIds(bytes), (layer) => ids.get(layer));
  return { content, features, psb: header.version === 2, record: documentRecord(psd), psdFile: rememberRead(readable, content) };
}

/**
 * Walks ag-psd's layer records (no pixels read yet) without recursion, in the model's index order (top-most
 * first, a group before its children).
 * Answers the bytes ag-psd will allocate for the layers' pixels and masks (4 per pixel each).
 * @throws BridgeError `BAD_REQUEST` for groups nested deeper than `maxGroupDepth`, `PAYLOAD_TOO_LARGE` for a
 * layer or layer mask above `maxPixels`.
 */
function checkLayerRecords(roots: readonly Layer[], limits: { path: string; maxPixels: number; maxGroupDepth: number }): number {
  const { path, maxPixels, maxGroupDepth } = limits;
  let deepest = 0;
  let index = 0;
  let tooLarge: BridgeError | undefined;
  let bytes = 0;
  // The layer's own rectangle and its masks' (ag-psd allocates 4 bytes per pixel for each).
  const oversized = (layer: Layer, layerIndex: number): BridgeError | undefined => {
    const name = layer.name ?? "Layer";
    for (const [what, rect] of [["Layer", layer], ["Mask of layer", layer.mask], ["Mask of layer", layer.realMask]] as const) {
      const width = Math.max(0, (rect?.right ?? 0) - (rect?.left ?? 0));
      const height = Math.max(0, (rect?.bottom ?? 0) - (rect?.top ?? 0));
      bytes += width * height * 4;
      if (width * height <= maxPixels) continue;
      return new BridgeError("PAYLOAD_TOO_LARGE", `${what} "${name}" (index ${layerIndex}) of ${width}×${height} exceeds ${maxPixels} pixels`, {
        details: { path, layer: name, layerIndex, ...(what === "Layer" ? {} : { mask: true }), width, height, maxPixels, limit: "maxDocumentPixels" },
      });
    }
    return undefined;
  };
  // ag-psd lists children bottom-most first: pushed as they are, they pop top-most first.
  const pending: Array<{ layer: Layer; depth: number }> = roots.map((layer) => ({ layer, depth: 0 }));
  while (pending.length > 0) {
    const { layer, depth } = pending.pop()!;
    const layerIndex = index++;
    if (layer.children) {
      deepest = Math.max(deepest, depth + 1);
      for (const child of layer.children) pending.push({ layer: child, depth: depth + 1 });
    }
    tooLarge ??= oversized(layer, layerIndex);
  }
  // Depth first: the whole tree is walked either way, and a hostile nesting is the more telling answer.
  if (deepest > maxGroupDepth) {
    throw new BridgeError("BAD_REQUEST", `${path} nests groups ${deepest} deep; at most ${maxGroupDepth} can be opened`, {
      details: { path, depth: deepest, max: maxGroupDepth, limit: "maxPsdGroupDepth" },
    });
  }
  if (tooLarge !== undefined) throw tooLarge;
  return bytes;
}

/**
 * Whether a file's only picture is its merged image: no layer records (what Photoshop writes for a flattened
 * document), or a single unnamed empty record (what some writers emit instead of none).
 */
function isFlattened(records: readonly Layer[]): boolean {
  if (records.length === 0) return true;
  const only = records[0]!;
  const empty = (only.right ?? 0) - (only.left ?? 0) <= 0 || (only.bottom ?? 0) - (only.top ?? 0) <= 0;
  return records.length === 1 && !only.children && !only.name && empty;
}

/** The file read again with its merged image, or undefined when it has none (truncated or zero-sized). */
function readMergedImage(bytes: Buffer): Psd | undefined {
  try {
    const psd = agPsd().readPsd(bytes, { ...READ_OPTIONS, skipLayerImageData: true });
    return psd.imageData !== undefined && psd.imageData.width > 0 && psd.imageData.height > 0 ? psd : undefined;
  } catch {
    return undefined;
  }
}

function readOrRefuse(bytes: Buffer, path: string, options: ReadOptions): Psd {
  try {
    return agPsd().readPsd(bytes, options);
  } catch (cause) {
    // The reader's own words say what it met (a bad block signature, a length past the end…).
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new BridgeError("BAD_REQUEST", `PSD file could not be read: ${path}: ${reason}`, { details: { path, reason }, cause });
  }
}

/** Keeps the file's layer ids when present and unique; assigns fresh ones above the largest otherwise. */
function assignLayerIds(roots: readonly Layer[]): Map<Layer, number> {
  const all: Layer[] = [];
  const walk = (layers: readonly Layer[]): void => {
    for (const layer of layers) {
      all.push(layer);
      if (layer.children) walk(layer.children);
    }
  };
  walk(roots);
  const ids = new Map<Layer, number>();
  const used = new Set<number>();
  for (const layer of all) {
    const id = layer.id;
    if (id !== undefined && Number.isInteger(id) && id > 0 && !used.has(id)) {
      ids.set(layer, id);
      used.add(id);
    }
  }
  let next = Math.max(0, ...used) + 1;
  for (const layer of all) if (!ids.has(layer)) ids.set(layer, next++);
  return ids;
}

/**
 * Whether a record's protection flags lock the layer as the model's `locked` does: its pixels and its position
 * (what Photoshop's "lock all" sets, with transparency). A lock of transparency alone is kept in the record only.
 */
export function isLocked(flags: Layer["protected"]): boolean {
  return flags?.composite === true && flags.position === true;
}

function fromPsdLayer(layer: Layer, ids: ReadonlyMap<Layer, number>, restrictions: (id: number) => readonly number[] | undefined): EmbeddedLayer {
  const record = layerRecord(layer);
  const id = ids.get(layer) ?? 0;
  const restrictedChannels = restrictions(id);
  const common = {
    id,
    name: layer.name ?? "Layer",
    visible: !layer.hidden,
    opacity: Math.round((layer.opacity ?? 1) * 255),
    blendMode: layer.blendMode ?? "normal",
    ...(layer.clipping === true ? { clipping: true } : {}),
    ...(layer.fillOpacity !== undefined && layer.fillOpacity < 1 ? { fillOpacity: Math.round(Math.max(0, layer.fillOpacity) * 255) } : {}),
    ...(layer.knockout === true ? { knockout: true } : {}),
    ...(isLocked(layer.protected) ? { locked: true } : {}),
    ...(restrictedChannels !== undefined && restrictedChannels.length > 0 ? { restrictedChannels } : {}),
    // Only a style with an effect on is kept for rendering (a file often records a whole style switched off).
    ...(hasActiveEffects(layer.effects) ? { effects: layer.effects, ...(layer.referencePoint ? { effectsOrigin: layer.referencePoint } : {}) } : {}),
    ...fromPsdMasks(layer),
    record,
  };
  if (layer.children) {
    return { ...common, kind: "group", children: layer.children.slice().reverse().map((child) => fromPsdLayer(child, ids, restrictions)) };
  }
  const kind = recordKind(record) ?? "pixel";
  const image = layer.imageData;
  if (!image || image.width === 0 || image.height === 0) {
    return { ...common, kind, left: layer.left ?? 0, top: layer.top ?? 0, width: 0, height: 0, data: new Uint8ClampedArray(0) };
  }
  const data = image.data instanceof Uint8ClampedArray ? image.data : Uint8ClampedArray.from(image.data);
  return { ...common, kind, left: layer.left ?? 0, top: layer.top ?? 0, width: image.width, height: image.height, data } satisfies PixelLayer;
}

