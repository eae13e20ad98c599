import { basename, extname } from "node:path";
import { NEVER } from "rxjs";
import { DEFAULT_MAX_OPEN_FILE_BYTES, lostFeatures, resolveOpenPath, writeFileAtomic, type FileAccess } from "../../files/index.js";
import { BridgeError } from "../../protocol/index.js";
import type { DataLoss, HostDocument, HostLayer, HostRect, LayerPreviewPayload } from "../../protocol/index.js";
import type { Logger } from "../../logger.js";
import type { EncodedImage, HostAdapter, HostCallContext, HostInfo } from "../host.js";
import { parseColor } from "./color.js";
import { renderLayer } from "./composite.js";
import { decodeImage } from "./decode.js";
import type { EmbeddedDocument } from "./document.js";
import { ContentBuilder } from "./document.js";
import { encodeDocument, encodeRaster, formatForExtension, toDataUri } from "./encode.js";
import { EMBEDDED_EVENT_TYPES, EmbeddedEvents } from "./events.js";
import { layeredSaveFormat, readDocumentFile } from "./files.js";
import { CUTOUT_EVENT, cutoutOps, type EmbeddedCutoutOptions } from "./cutout/index.js";
import { importedLayer, planInsertion, readImportSource } from "./import.js";
import {
  DEFAULT_IMPORT_LIMITS,
  DEFAULT_MAX_DOCUMENT_PIXELS,
  EVENT_PREVIEW_MAX_SIZE,
  type ImportLimits,
} from "./limits.js";
import { serializePsd } from "./psd.js";
import { EMPTY_BOUNDS, emptyRaster, solidRaster } from "./raster.js";
import { SAMPLE_NAME, buildSampleContent } from "./sample.js";
import { selectionOps } from "./selection.js";
import { createScriptRunner } from "./scripts/index.js";
import type { ScriptLimits } from "./scripts/index.js";
import { DocumentStore } from "./store.js";
import { activeEntries, flattenLayers, requireLayerRef, resolveLayerRef, toHostDocument, toHostLayer, toHostLayerTree } from "./tree.js";

/** `hostVersion` the embedded editor reports. */
export const EMBEDDED_HOST_VERSION = "embedded 0.1.0";

/** Options of {@link createEmbeddedHost}. */
export interface EmbeddedHostOptions {
  /**
   * Start with the generated sample document (ignored when `open` is set).
   * @default true
   */
  readonly sample?: boolean | undefined;
  /** A `.psd`, `.png`, `.jpg`/`.jpeg` or `.webp` file to open at start instead of the sample. */
  readonly open?: string | undefined;
  /**
   * Largest document (width × height) that can be created or opened; bounds memory (4 bytes per pixel per layer).
   * @default DEFAULT_MAX_DOCUMENT_PIXELS (100 000 000)
   */
  readonly maxDocumentPixels?: number | undefined;
  /** Folders `jsx:execute` may run named scripts from (never outside them). @default [] */
  readonly scriptDirs?: readonly string[] | undefined;
  /** Script sandbox limits (deadline, heap, result size, …). @default DEFAULT_SCRIPT_LIMITS */
  readonly scriptLimits?: Partial<ScriptLimits> | undefined;
  /** Let `layer:importImage` read `file:` URIs and local paths. @default true */
  readonly allowFileImport?: boolean | undefined;
  /** Let `layer:importImage` fetch URLs that resolve to loopback or private addresses. @default false */
  readonly allowPrivateUrlImport?: boolean | undefined;
  /** Overrides of the `layer:importImage` limits (bytes, pixels, URL timeout, redirects). @default DEFAULT_IMPORT_LIMITS */
  readonly importLimits?: Partial<ImportLimits> | undefined;
  /** Cutout settings (GrabCut refinement, minimum confidence, work size). @default DEFAULT_CUTOUT_OPTIONS */
  readonly cutout?: Partial<EmbeddedCutoutOptions> | undefined;
  /** Where cutout confidences are logged. @default none */
  readonly logger?: Logger | undefined;
  /**
   * File rules for `--open` and for scripts' `app.open`, `save` and `exportDocument`: files roots, backups, read
   * limits. The bridge passes its own; alone, the editor is unconfined with backups on.
   * @default unconfined, backups on, DEFAULT_MAX_OPEN_FILE_BYTES, import limit from `importLimits`
   */
  readonly files?: FileAccess | undefined;
}

/** Stops work whose caller has given up (deadline passed or bridge shutting down). */
function checkAborted(ctx: HostCallContext): void {
  if (ctx.signal.aborted) throw new BridgeError("TIMEOUT", "The call was aborted before the editor finished");
}

/**
 * The embedded headless editor: documents live in this process, pixels are composited in JS and encoded with
 * sharp, layered files are PSD via ag-psd. See `README.md` beside this file for the index spaces.
 *
 * @example
 * const host = createEmbeddedHost({ sample: true });
 * await host.connect();
 */
export function createEmbeddedHost(options: EmbeddedHostOptions = {}): HostAdapter {
  const maxPixels = options.maxDocumentPixels ?? DEFAULT_MAX_DOCUMENT_PIXELS;
  const store = new DocumentStore();
  let connected = false;
  const importPolicy = {
    limits: { ...DEFAULT_IMPORT_LIMITS, ...options.importLimits },
    allowFile: options.allowFileImport ?? true,
    allowPrivateUrl: options.allowPrivateUrlImport ?? false,
  };
  const files: FileAccess = options.files ?? {
    policy: { roots: null },
    backupOnOverwrite: true,
    maxOpenFileBytes: DEFAULT_MAX_OPEN_FILE_BYTES,
    maxImportFileBytes: importPolicy.limits.maxBytes,
    allowFileImport: importPolicy.allowFile,
    allowEditorScripts: false,
  };
  const cutouts = cutoutOps({
    document: (id) => store.get(id),
    changed: (doc, changes) => events.notifyChanged(doc, changes),
    checkAborted,
    options: options.cutout,
    logger: options.logger,
  });

  async function previewOf(doc: EmbeddedDocument | undefined, maxSize: number): Promise<LayerPreviewPayload> {
    const entry = doc ? resolveLayerRef(doc, { by: "active" }) : null;
    if (!doc || !entry) return null;
    const rendered = renderLayer(entry.layer);
    const image = await encodeRaster(rendered?.raster ?? null, rendered?.bounds ?? EMPTY_BOUNDS, { format: "png", maxSize });
    const { id, name } = entry.layer;
    return { documentId: doc.id, id, name, index: entry.index, width: image.width, height: image.height, data: toDataUri(image) };
  }

  function activeHostLayers(doc: EmbeddedDocument): HostLayer[] {
    const entries = flattenLayers(doc.layers);
    return activeEntries(doc).map((entry) => toHostLayer(entry, entries, false));
  }

  const events = new EmbeddedEvents({
    selection: () => {
      const selection = store.active()?.selection;
      return selection ? { ...selection } : null;
    },
    activeLayers: () => {
      const doc = store.active();
      return doc ? activeHostLayers(doc) : null;
    },
    preview: () => previewOf(store.active(), EVENT_PREVIEW_MAX_SIZE),
    activeDocumentId: () => store.active()?.id,
  });

  function checkSize(width: number, height: number, details: Record<string, unknown>): void {
    if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
      throw new BridgeError("BAD_REQUEST", "Document width and height must be positive integers", { details: { ...details, width, height } });
    }
    if (width * height > maxPixels) {
      throw new BridgeError("PAYLOAD_TOO_LARGE", `Document of ${width}×${height} exceeds ${maxPixels} pixels`, {
        details: { ...details, width, height, maxPixels },
      });
    }
  }

  /** Opens a file at a path already resolved against the files roots. */
  async function open(path: string, signal?: AbortSignal): Promise<EmbeddedDocument> {
    const file = await readDocumentFile(path, { maxPixels, maxBytes: files.maxOpenFileBytes, signal });
    const doc = store.add(file.content, { name: file.name, filePath: file.filePath, source: file.source });
    events.activeDocumentChanged();
    return doc;
  }

  const isActive = (doc: EmbeddedDocument): boolean => store.active() === doc;

  const host: HostAdapter = {
    kind: "embedded",
    eventTypes: [...EMBEDDED_EVENT_TYPES, CUTOUT_EVENT],
    lost$: NEVER,

    async connect(): Promise<HostInfo> {
      if (!connected) {
        if (options.open !== undefined) {
          // `--open` is read like any client path: inside the files roots, a regular file, bounded.
          await open((await resolveOpenPath(files, host, options.open)).path);
        } else if (options.sample !== false) {
          store.add(await buildSampleContent(), { name: SAMPLE_NAME });
          events.activeDocumentChanged();
        }
        connected = true;
      }
      return { hostVersion: EMBEDDED_HOST_VERSION };
    },

    async close(): Promise<void> {
      if (!connected) return;
      connected = false;
      store.clear();
    },

    events: (type) => (type === CUTOUT_EVENT ? cutouts.reports$ : events.stream(type)),

    async listDocuments(): Promise<HostDocument[]> {
      return store.list().map(toHostDocument);
    },

    async currentDocument(): Promise<HostDocument> {
      return toHostDocument(store.get(undefined));
    },

    async getDocument(_ctx, documentId): Promise<HostDocument> {
      return toHostDocument(store.get(documentId));
    },

    async openDocument(ctx, path): Promise<HostDocument> {
      checkAborted(ctx);
      return toHostDocument(await open(path, ctx.signal));
    },

    async createDocument(ctx, { width, height, name, background }): Promise<HostDocument> {
      checkSize(width, height, {});
      const color = parseColor(background ?? "white");
      checkAborted(ctx);
      const builder = new ContentBuilder(width, height);
      const layer =
        color[3] === 255
          ? builder.pixel("Background", solidRaster(width, height, color), { kind: "background" })
          : builder.pixel("Layer 1", color[3] === 0 ? emptyRaster(0, 0) : solidRaster(width, height, color));
      const doc = store.add(builder.build([layer], [layer.id]), { name: name ?? store.untitledName() });
      events.activeDocumentChanged();
      return toHostDocument(doc);
    },

    async closeDocument(_ctx, documentId): Promise<number> {
      const doc = store.get(documentId);
      const wasActive = isActive(doc);
      store.remove(doc.id);
      events.documentClosed(doc.id);
      if (wasActive) events.activeDocumentChanged();
      return doc.id;
    },

    async saveLosses(_ctx, { documentId, path }): Promise<DataLoss[]> {
      const doc = store.get(documentId);
      const features = doc.source?.features ?? [];
      // A PSB written as PSB keeps its format; everything else in the source's list is beyond this model.
      const kept = new Set<string>(layeredSaveFormat(path) === "psb" ? ["psbFormat"] : []);
      const present = new Set(flattenLayers(doc.layers).map((entry) => entry.layer.id));
      return lostFeatures(features, kept, (id) => present.has(id));
    },

    async saveDocument(ctx, { documentId, path, backup }) {
      const doc = store.get(documentId);
      const format = layeredSaveFormat(path);
      checkAborted(ctx);
      const bytes = serializePsd(doc, { psb: format === "psb" });
      checkAborted(ctx);
      const written = await writeFileAtomic(path, bytes, { backup });
      doc.filePath = path;
      doc.name = basename(path);
      doc.isDirty = false;
      return { path, format, ...(written.backupPath !== undefined ? { backupPath: written.backupPath } : {}) };
    },

    async exportDocumentFile(
      ctx,
      { documentId, path, format, quality },
    ): Promise<{ path: string; format: string; width: number; height: number; size: number }> {
      const doc = store.get(documentId);
      const chosen = format ?? formatForExtension(extname(path));
      if (!chosen) {
        throw new BridgeError("BAD_REQUEST", "Pass format or use a .png, .jpg, .jpeg, .webp, .tif or .tiff path", { details: { path } });
      }
      checkAborted(ctx);
      const image = await encodeDocument(doc, { format: chosen, quality });
      checkAborted(ctx);
      await writeFileAtomic(path, image.bytes);
      return { path, format: chosen, width: image.width, height: image.height, size: image.bytes.byteLength };
    },

    async getLayers(_ctx, documentId): Promise<HostLayer[]> {
      return toHostLayerTree(store.get(documentId));
    },

    async getLayer(_ctx, { documentId, ref, children }): Promise<HostLayer | null> {
      const doc = store.get(documentId);
      const entry = resolveLayerRef(doc, ref);
      return entry ? toHostLayer(entry, flattenLayers(doc.layers), children === true) : null;
    },

    async selectLayers(_ctx, { documentId, ids }): Promise<HostLayer[]> {
      const doc = store.get(documentId);
      const known = new Set(flattenLayers(doc.layers).map((entry) => entry.layer.id));
      const missing = ids.find((id) => !known.has(id));
      if (missing !== undefined) {
        throw new BridgeError("LAYER_NOT_FOUND", `No layer with id ${missing} in document ${doc.id}`, {
          details: { layerId: missing, documentId: doc.id },
        });
      }
      doc.activeLayerIds = [...new Set(ids)];
      events.notifyChanged(doc, { activeLayers: true });
      return activeHostLayers(doc);
    },

    async importImage(ctx, params): Promise<HostLayer> {
      const doc = store.get(params.documentId);
      const insert = planInsertion(doc, params);
      const source = await readImportSource(params.image, importPolicy, ctx.signal);
      checkAborted(ctx);
      const { raster } = await decodeImage(source.bytes, {
        maxPixels: importPolicy.limits.maxPixels,
        size: params.size,
        details: { source: source.source, format: source.format },
      });
      checkAborted(ctx);
      store.get(doc.id); // closed while decoding → DOCUMENT_NOT_FOUND
      const layer = importedLayer(doc, raster, params);
      insert(layer);
      doc.activeLayerIds = [layer.id];
      events.notifyChanged(doc, { pixels: true, layers: true, activeLayers: true });
      return toHostLayer(requireLayerRef(doc, { by: "id", id: layer.id }), [], false);
    },

    async exportDocumentImage(ctx, exportOptions): Promise<EncodedImage> {
      const doc = store.get(exportOptions.documentId);
      checkAborted(ctx);
      return encodeDocument(doc, exportOptions);
    },

    async exportLayerImage(ctx, exportOptions): Promise<EncodedImage> {
      const doc = store.get(exportOptions.documentId);
      const entry = requireLayerRef(doc, exportOptions.ref);
      checkAborted(ctx);
      const rendered = renderLayer(entry.layer);
      checkAborted(ctx);
      return encodeRaster(rendered?.raster ?? null, rendered?.bounds ?? EMPTY_BOUNDS, exportOptions);
    },

    async layerPreview(ctx, { documentId, maxSize }): Promise<LayerPreviewPayload> {
      const doc = store.get(documentId);
      checkAborted(ctx);
      return previewOf(doc, maxSize);
    },

    async getSelection(_ctx, documentId): Promise<HostRect | null> {
      const selection = store.get(documentId).selection;
      return selection ? { ...selection } : null;
    },

    ...selectionOps({ document: (id) => store.get(id), changed: (doc, changes) => events.notifyChanged(doc, changes), checkAborted }),
    autoCutout: (ctx, cutoutOptions) => cutouts.autoCutout(ctx, cutoutOptions),
    removeBackground: (ctx, cutoutOptions) => cutouts.removeBackground(ctx, cutoutOptions),

    runScript: (ctx, scriptOptions) => scripts.runScript(ctx, scriptOptions),
    executeScript: (ctx, scriptOptions) => scripts.executeScript(ctx, scriptOptions),
  };
  const scripts = createScriptRunner({
    store,
    events,
    host,
    files,
    maxDocumentPixels: maxPixels,
    scriptDirs: options.scriptDirs ?? [],
    limits: options.scriptLimits,
  });
  return host;
}
