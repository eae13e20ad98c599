/**
 * PSD save with ag-psd: each layer is written from its kept record (what the file held that the model does not
 * own) with the model's fields written over it, the document from its kept record (image resources, patterns,
 * linked files of smart objects…), plus a fresh merged image and the "has real merged data" flag so other readers
 * show it instead of compositing the layers themselves.
 *
 * Layers are matched to the records they were opened from by id, so two invariants hold for every save: an id the
 * editor gives a new layer is above every record id of the opened file (the hidden records that close groups
 * included, which ag-psd's tree leaves out), and the group nesting written is the editor's tree, never a divider
 * block carried from the original onto another record (see `psd-file/carry-over.ts`). A save that broke either
 * wrote a file no reader could open; the written file is also read back before it replaces anything.
 *
 * What a save would drop is measured on the bytes it writes: the file is read back (records only) and compared
 * feature by feature with what the document was opened with ({@link psdSaveLosses}).
 */
import type { BlendMode, ImageResources, Layer, Psd } from "ag-psd";
import type { DataLoss } from "../../protocol/index.js";
import { imageResourceIds, psdFeatures, readPsdHeader } from "../_internal/psd-features.js";
import { canvasRegion, renderDocument, renderRows } from "./composite.js";
import type { EmbeddedDocument, EmbeddedLayer } from "./document.js";
import { agPsd, ensureCanvasFactory, isLocked, PSD_BLEND_MODES } from "./psd.js";
import { toPsdMasks } from "./psd-masks.js";
import { CONTENT_KEYS, carryOverBlocks, carryOverResources, keepSets, toOriginalMode, VERBATIM_KEYS } from "./psd-file/index.js";
import { psdBytesLosses } from "./psd-losses.js";
import { recordKind } from "./psd-records.js";
import type { Raster } from "./raster.js";
import type { Stages } from "./work.js";

/** Who wrote the file, in its version-info resource, when the file it was opened from named nobody. */
const WRITER_NAME = "image-editor-bridge";

/** Document record fields ag-psd cannot write (it writes 8-bit RGB): the colour mode layer answers for them. */
const HEADER_FIELDS = ["bitsPerChannel", "colorMode", "channels", "palette"] as const;

/** The document's blocks that hold the embedded files of smart objects (ag-psd writes `lnk2`). */
const LINKED_FILE_KEYS: ReadonlySet<string> = new Set(["lnk2", "lnkD", "lnk3"]);
/** Blocks that hold the document's patterns (ag-psd writes them all as `Patt`). */
const PATTERN_KEYS: ReadonlySet<string> = new Set(["Patt", "Pat2", "Pat3"]);

/** Blocks that hold a layer's vector mask path. */
const VECTOR_MASK_KEYS: ReadonlySet<string> = new Set(["vmsk", "vsms"]);
/** The blocks of a layer style (the current, the several-of-a-kind and the old one): never carried onto a style `layer:setEffects` set. */
const STYLE_KEYS: ReadonlySet<string> = new Set(["lfx2", "lmfx", "lrFX"]);

/** Every layer of a tree, groups included. */
function allLayers(layers: readonly EmbeddedLayer[]): EmbeddedLayer[] {
  return layers.flatMap((layer) => (layer.kind === "group" ? [layer, ...allLayers(layer.children)] : [layer]));
}

/**
 * The ag-psd layer a model layer saves as: its kept record, with what the model owns written over it. A layer the
 * model made itself has no record and saves as plain pixels.
 */
function toPsdLayer(layer: EmbeddedLayer): Layer {
  const blendMode = (PSD_BLEND_MODES.has(layer.blendMode) ? layer.blendMode : "normal") as BlendMode;
  const { mask: _mask, realMask: _realMask, engineText: _engineText, effectsSet: _effectsSet, ...kept } = layer.record ?? {};
  const out: Layer = { ...(kept as Layer), id: layer.id, name: layer.name, hidden: !layer.visible, opacity: layer.opacity / 255, blendMode };
  out.clipping = layer.clipping === true;
  out.knockout = layer.knockout === true;
  // The model's list, read from the bytes: the record's is ag-psd's reading, which loses the last channel.
  if (layer.restrictedChannels !== undefined) out.channelBlendingRestrictions = [...layer.restrictedChannels];
  // A fill opacity back at 100% is written when the file had one: left out, the file's own block would be carried
  // back over it (see `psd-file/carry-over.ts`).
  if (layer.fillOpacity !== undefined && layer.fillOpacity < 255) out.fillOpacity = layer.fillOpacity / 255;
  else if (kept.fillOpacity !== undefined) out.fillOpacity = 1;
  else delete out.fillOpacity;
  // Locked is the model's; partial locks (transparency alone) stay as the record has them. Unlocked is written
  // when the record had flags, for the same reason.
  if (layer.locked === true && !isLocked(kept.protected)) out.protected = { ...kept.protected, transparency: true, composite: true, position: true };
  else if (layer.locked !== true && isLocked(kept.protected)) out.protected = { ...kept.protected, transparency: false, composite: false, position: false };
  Object.assign(out, toPsdMasks(layer));
  if (layer.kind === "group") return { ...out, opened: layer.record?.opened ?? true, children: layer.children.slice().reverse().map(toPsdLayer) };
  if (layer.width === 0 || layer.height === 0) return out;
  return { ...out, left: layer.left, top: layer.top, imageData: { width: layer.width, height: layer.height, data: layer.data } };
}

/** The file's embedded files and those `layer:replaceContents` gave smart objects; undefined when there are none new. */
function savedLinkedFiles(doc: EmbeddedDocument): Psd["linkedFiles"] {
  const added = allLayers(doc.layers).flatMap((layer) => (layer.embeddedFile === undefined ? [] : [layer.embeddedFile]));
  if (added.length === 0) return undefined;
  const ids = new Set(added.map((file) => file.id));
  const own = (doc.source?.record?.linkedFiles ?? []).filter((file) => !ids.has(file.id));
  return [...own, ...added.filter((file, i) => added.findIndex((other) => other.id === file.id) === i).map((file) => ({ ...file }))];
}

/** The progress units of a save: the compositor's rows, then one per row for encoding. */
export function psdSaveUnits(doc: EmbeddedDocument): number {
  return renderRows(doc.layers, canvasRegion(doc)) + doc.height;
}

/** The merged image a save writes; `stages` hears "compositing", row by row. */
export function renderComposite(doc: EmbeddedDocument, stages?: Stages | undefined): Raster {
  stages?.stage("compositing", renderRows(doc.layers, canvasRegion(doc)));
  return renderDocument(doc, stages?.rows());
}

/** A JPEG thumbnail as Photoshop stores it (ag-psd's raw form). */
export interface PsdThumbnail {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

/**
 * The document's image resources as saved: the file's own, with the resolution the document has now, the
 * "has real merged data" flag and the thumbnail (a fresh one, or none: a stale picture would mislead).
 */
function savedResources(doc: EmbeddedDocument, thumbnail: PsdThumbnail | undefined): ImageResources {
  const kept: ImageResources = { ...doc.source?.record?.imageResources };
  // The comps as they are now (a list emptied is written empty: left out, the file's own would be carried back).
  if (doc.layerComps !== undefined) kept.layerComps = { list: doc.layerComps.list.map((comp) => ({ ...comp })), ...(doc.layerComps.lastApplied === undefined ? {} : { lastApplied: doc.layerComps.lastApplied }) };
  const previous = kept.resolutionInfo;
  delete kept.thumbnail;
  delete kept.thumbnailRaw;
  if (thumbnail !== undefined) kept.thumbnailRaw = { ...thumbnail };
  const version = kept.versionInfo;
  // The global light the document has now (`layer:setEffects` may have set it).
  if (doc.globalLight !== undefined) Object.assign(kept, { globalAngle: doc.globalLight.angle, globalAltitude: doc.globalLight.altitude });
  return {
    ...kept,
    resolutionInfo: {
      horizontalResolutionUnit: "PPI",
      widthUnit: "Inches",
      verticalResolutionUnit: "PPI",
      heightUnit: "Inches",
      ...previous,
      horizontalResolution: doc.resolution,
      verticalResolution: doc.resolution,
    },
    versionInfo: {
      hasRealMergedData: true,
      writerName: version?.writerName ?? WRITER_NAME,
      readerName: version?.readerName ?? WRITER_NAME,
      fileVersion: version?.fileVersion ?? 1,
    },
  };
}

/**
 * A PSD file (RLE) of the document: its layers, its kept records and `composite` as the merged image (without one,
 * a blank merged image: enough for the editor's own recovery copies, which reopen from the layers). `psb` writes
 * the large document format (edges past 30,000 px). `stages` hears "encoding" (one unit per row).
 */
export function serializePsd(
  doc: EmbeddedDocument,
  options: { composite?: Raster | undefined; psb?: boolean | undefined; thumbnail?: PsdThumbnail | undefined; stages?: Stages | undefined },
): Buffer {
  ensureCanvasFactory();
  const record: Record<string, unknown> = { ...doc.source?.record };
  for (const key of HEADER_FIELDS) delete record[key];
  const { composite } = options;
  const linkedFiles = savedLinkedFiles(doc);
  // A pattern fill made here added a tile: the document's list is a new one, written whole.
  const patternsAdded = doc.patterns !== undefined && doc.patterns !== doc.source?.record?.patterns;
  const psd: Psd = {
    ...(record as Omit<Psd, "width" | "height">),
    ...(linkedFiles === undefined ? {} : { linkedFiles }),
    ...(patternsAdded ? { patterns: [...doc.patterns!] } : {}),
    width: doc.width,
    height: doc.height,
    imageResources: savedResources(doc, options.thumbnail),
    ...(composite === undefined ? {} : { imageData: { width: composite.width, height: composite.height, data: composite.data } }),
    children: doc.layers.slice().reverse().map(toPsdLayer),
  };
  options.stages?.stage("encoding", doc.height);
  const psb = options.psb === true;
  let written: Uint8Array;
  try {
    written = agPsd().writePsdBuffer(psd, { psb });
  } catch {
    // ag-psd cannot write back some records it reads (a timeline resource, some effect or gradient-map
    // descriptors): leave those out, and the comparison with the opened file reports them.
    written = agPsd().writePsdBuffer(withoutUnwritable(psd, psb), { psb });
  }
  const source = doc.source?.psdFile;
  if (source === undefined) return Buffer.from(written.buffer, written.byteOffset, written.byteLength);
  // Back in the file's own mode and depth, with the image resources and additional information ag-psd does not
  // keep (but not the content of a layer the editor rasterised).
  const original = source.opened.original.bytes;
  const layers = allLayers(doc.layers);
  const contentless = new Set(layers.filter((layer) => recordKind(layer.record) === undefined).map((layer) => layer.id));
  // A record as read (not moved, not rasterised) is written from the file's own bytes where ag-psd would round it.
  const asRead = new Set(layers.filter((layer) => layer.record !== undefined && source.read.get(layer.record) === layer.id).map((layer) => layer.id));
  // A vector mask path an edit took out of a record (a rasterised shape: its path is in its pixels now).
  const pathless = new Set(
    layers.filter((layer) => layer.record !== undefined && source.read.get(layer.record) !== layer.id && layer.record.vectorMask === undefined).map((layer) => layer.id),
  );
  const styled = new Set(layers.filter((layer) => layer.record?.effectsSet === true).map((layer) => layer.id));
  const kept = carryOverBlocks(
    carryOverResources(written, original),
    original,
    (id, key) => (contentless.has(id) && CONTENT_KEYS.has(key)) || (pathless.has(id) && VECTOR_MASK_KEYS.has(key)) || (styled.has(id) && STYLE_KEYS.has(key)),
    (id, key) => asRead.has(id) && VERBATIM_KEYS.has(key),
    new Set([...(linkedFiles === undefined ? [] : LINKED_FILE_KEYS), ...(patternsAdded ? PATTERN_KEYS : [])]),
  );
  const saved = toOriginalMode(kept, source.opened, keepSets(source, doc));
  return Buffer.from(saved.buffer, saved.byteOffset, saved.byteLength);
}

/** A throwaway write of `psd` without pixels: whether ag-psd can write its records. */
function writes(psd: Psd, psb: boolean): boolean {
  try {
    agPsd().writePsdBuffer({ ...psd, imageData: undefined, children: psd.children }, { psb });
    return true;
  } catch {
    return false;
  }
}

/** A record without the parts ag-psd fails to write: found by trial, image resource by image resource, key by key. */
function withoutUnwritable(psd: Psd, psb: boolean): Psd {
  const { width, height } = psd;
  const resources: Record<string, unknown> = { ...psd.imageResources };
  for (const key of Object.keys(resources)) {
    if (!writes({ width, height, imageResources: { [key]: resources[key] } as ImageResources }, psb)) delete resources[key];
  }
  const top: Record<string, unknown> = { ...psd, imageResources: resources, children: undefined };
  for (const key of Object.keys(top)) {
    if (["width", "height", "imageResources", "imageData", "children"].includes(key)) continue;
    if (!writes({ width, height, [key]: top[key] } as Psd, psb)) delete top[key];
  }
  const layer = (record: Layer): Layer => {
    const bare = (fields: Layer): Layer => ({ ...fields, children: undefined, imageData: undefined, mask: undefined, realMask: undefined });
    const out: Record<string, unknown> = { ...record };
    if (!writes({ width, height, children: [bare(record)] }, psb)) {
      for (const key of Object.keys(record)) {
        if (["children", "imageData", "mask", "realMask", "name"].includes(key)) continue;
        const without = { ...record } as Record<string, unknown>;
        delete without[key];
        if (writes({ width, height, children: [bare(without as Layer)] }, psb)) delete out[key];
      }
    }
    if (record.children) out.children = record.children.map(layer);
    return out as Layer;
  };
  return { ...(top as unknown as Psd), width, height, imageData: psd.imageData, children: (psd.children ?? []).map(layer) };
}

/**
 * What the document was opened with that `bytes` (a save of it) lack: the source's features (depth, colour
 * mode, resources, text and smart-object layers, effects, masks…) compared, layer by layer, with the same
 * features read back from the bytes. Layers the user deleted do not count.
 */
export function psdSaveLosses(doc: EmbeddedDocument, bytes: Buffer): DataLoss[] {
  const present = new Set(allLayers(doc.layers).map((layer) => layer.id));
  const original = doc.source?.psdFile?.opened.original.bytes;
  // A PSD source is compared structure to structure; an image file opened as a document, by its features.
  if (original !== undefined) return psdBytesLosses(original, bytes, present);
  const source = doc.source?.features ?? [];
  if (source.length === 0) return [];
  const header = readPsdHeader(bytes);
  if (header === undefined) return source.map((feature) => ({ ...feature }));
  ensureCanvasFactory();
  const written = agPsd().readPsd(bytes, { useImageData: true, skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true, skipLinkedFilesData: true });
  const now = psdFeatures(written, header, imageResourceIds(bytes));
  const out: DataLoss[] = [];
  for (const feature of source) {
    const after = now.find((entry) => entry.kind === feature.kind);
    if (feature.layerIds === undefined) {
      if (after === undefined || after.count < feature.count || (after.detail ?? "") !== (feature.detail ?? "")) out.push({ ...feature });
      continue;
    }
    const kept = new Set(after?.layerIds ?? []);
    const layerIds = feature.layerIds.filter((id) => present.has(id) && !kept.has(id));
    if (layerIds.length > 0) out.push({ ...feature, count: layerIds.length, layerIds });
  }
  return out;
}
