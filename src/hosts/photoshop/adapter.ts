import { randomUUID } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import sharp from "sharp";
import { BridgeError } from "../../protocol/index.js";
import type { HostBounds, HostDocument, HostLayer, HostRect, LayerPreviewPayload, SelectionPath } from "../../protocol/index.js";
import type { Logger } from "../../logger.js";
import { silentLogger } from "../../logger.js";
import type { EncodedImage, ExportOptions, HostAdapter, HostCallContext, HostInfo, LayerRef } from "../host.js";
import { eitherSignal } from "./_internal/signal.js";
import { EMPTY_BOUNDS, encodePixels, MAX_ENCODE_PIXELS } from "./encode.js";
import { copyBackup, writeFileAtomic, type Filesystem } from "../../files/index.js";
import { targetSize } from "../_internal/target-size.js";
import { formatForExtension, renderFile, UNKNOWN_FILE_FORMAT } from "../_internal/file-format.js";
import { readEnvelope } from "./envelope.js";
import { PHOTOSHOP_EVENTS, photoshopEventStreams } from "./events.js";
import { resolvePhotoshopLimits, type PhotoshopLimits } from "./limits.js";
import type { PhotoshopLink, PixmapReply } from "./link.js";
import { buildScript, paramsPrefix, type Operation } from "./scripts.js";
import { toSelectionPath } from "../_internal/selection-svg.js";
import { readNamedScript } from "../_internal/named-script.js";

/** Largest image `layer:importImage` accepts, in pixels (decoded by sharp before Photoshop sees it). */
export const MAX_IMPORT_PIXELS = 50_000_000;
/** Longest edge of `layer:previewChange` previews (DESIGN §3). */
export const EVENT_PREVIEW_MAX_SIZE = 300;

/** Options of {@link createPhotoshopAdapter}. */
export interface PhotoshopAdapterOptions {
  /** How to reach Photoshop. */
  readonly link: PhotoshopLink;
  /** Folders `jsx:execute` may run named scripts from (never outside them). @default [] */
  readonly scriptDirs?: readonly string[] | undefined;
  readonly logger?: Logger | undefined;
  /** Overrides of {@link PHOTOSHOP_LIMITS}. */
  readonly limits?: Partial<PhotoshopLimits> | undefined;
  /**
   * Whether Photoshop runs on this machine (Generator plugin, or Remote Connections to loopback) or elsewhere;
   * paths for a remote Photoshop can only be checked lexically against the files roots.
   * @default "local"
   */
  readonly filesystem?: Filesystem | undefined;
}

const docBounds = (doc: HostDocument): HostBounds => ({ left: 0, top: 0, right: doc.width, bottom: doc.height });

/** A selection rectangle clipped to the canvas; `null` when nothing is left. */
function clipToCanvas(rect: HostRect, width: number, height: number): HostRect | null {
  const x = Math.max(0, Math.round(rect.x));
  const y = Math.max(0, Math.round(rect.y));
  const right = Math.min(width, Math.round(rect.x + rect.width));
  const bottom = Math.min(height, Math.round(rect.y + rect.height));
  return right > x && bottom > y ? { x, y, width: right - x, height: bottom - y } : null;
}

/** `data:image/…;base64,` or bare base64 → bytes; files and URLs are refused (Photoshop reads its own files). */
function decodeImageSource(image: string): Buffer {
  const match = /^data:image\/[a-z0-9.+-]+;base64,(.*)$/is.exec(image);
  const base64 = match ? match[1]! : image;
  if (!/^[A-Za-z0-9+/=\s]+$/.test(base64)) {
    throw new BridgeError("NOT_SUPPORTED", "The photoshop editor imports data URIs and base64 only, not files or URLs", {
      details: { capability: "layer:importImage from files or URLs", editor: "photoshop" },
    });
  }
  return Buffer.from(base64, "base64");
}

/**
 * The Photoshop editor behind a {@link PhotoshopLink}: every operation is one `.jsx` file returning a JSON
 * envelope; pixels come as pixmaps and are encoded here with sharp (never Photoshop's ImageMagick, reference A).
 */
export function createPhotoshopAdapter(options: PhotoshopAdapterOptions): HostAdapter {
  const { link } = options;
  const limits = resolvePhotoshopLimits(options.limits);
  const log = options.logger ?? silentLogger();
  const scriptDirs = options.scriptDirs ?? [];

  async function run<T>(signal: AbortSignal, op: Operation, params: Record<string, unknown> = {}): Promise<T> {
    return readEnvelope(await link.evaluate(buildScript(op, params), signal), op) as T;
  }

  const getDocument = (signal: AbortSignal, documentId: number | undefined): Promise<HostDocument> =>
    run<HostDocument>(signal, "document.get", { documentId });

  async function requireLayer(signal: AbortSignal, documentId: number | undefined, ref: LayerRef): Promise<HostLayer> {
    const layer = await run<HostLayer | null>(signal, "layer.get", { documentId, ref, children: false });
    if (layer === null) throw new BridgeError("LAYER_NOT_FOUND", "No layer is active in the document", { details: { documentId } });
    return layer;
  }

  /** Pixels of a layer at full size, capped at the pixmap edge limit. */
  async function layerPixels(signal: AbortSignal, doc: HostDocument, layer: HostLayer): Promise<PixmapReply | null> {
    if (layer.rect.width <= 0 || layer.rect.height <= 0) return null;
    const longest = Math.max(layer.rect.width, layer.rect.height);
    const scale = Math.min(1, limits.maxPixmapEdge / longest);
    return link.pixmap({ documentId: doc.id, layerId: layer.id, scale, maxDimension: limits.maxPixmapEdge }, signal);
  }

  async function exportLayer(signal: AbortSignal, options: ExportOptions & { ref: LayerRef }, overlay?: (bounds: HostBounds, size: { width: number; height: number }) => Promise<Buffer | undefined>): Promise<EncodedImage> {
    const doc = await getDocument(signal, options.documentId);
    const layer = await requireLayer(signal, doc.id, options.ref);
    const reply = await layerPixels(signal, doc, layer);
    if (reply === null) return encodePixels(null, EMPTY_BOUNDS, options);
    const bounds = reply.bounds;
    const size = targetSize(bounds.right - bounds.left, bounds.bottom - bounds.top, options, MAX_ENCODE_PIXELS);
    return encodePixels(reply.pixmap, bounds, options, size, overlay ? await overlay(bounds, size) : undefined);
  }

  async function exportDocument(signal: AbortSignal, options: ExportOptions): Promise<EncodedImage> {
    const doc = await getDocument(signal, options.documentId);
    const size = targetSize(doc.width, doc.height, options, MAX_ENCODE_PIXELS);
    // Ask Photoshop for the scaled composite directly: a big canvas at full size is slow and huge (B.8).
    const scale = Math.min(1, size.width / doc.width, limits.maxPixmapEdge / Math.max(doc.width, doc.height));
    const reply = await link.pixmap({ documentId: doc.id, scale, maxDimension: limits.maxPixmapEdge }, signal);
    return encodePixels(reply.pixmap, docBounds(doc), options, size);
  }

  async function preview(signal: AbortSignal, documentId: number | undefined, maxSize: number): Promise<LayerPreviewPayload> {
    const doc = await getDocument(signal, documentId);
    const layer = await run<HostLayer | null>(signal, "layer.get", { documentId: doc.id, ref: { by: "active" }, children: false });
    if (layer === null) return null;
    const reply = await layerPixels(signal, doc, layer);
    const options = { format: "png" as const, maxSize };
    const image = reply
      ? await encodePixels(reply.pixmap, reply.bounds, options, targetSize(reply.pixmap.width, reply.pixmap.height, options, MAX_ENCODE_PIXELS))
      : await encodePixels(null, EMPTY_BOUNDS, options);
    return {
      documentId: doc.id,
      id: layer.id,
      name: layer.name,
      index: layer.index,
      width: image.width,
      height: image.height,
      data: `data:image/png;base64,${Buffer.from(image.bytes).toString("base64")}`,
    };
  }

  const eventSignal = (): AbortSignal => AbortSignal.timeout(limits.eventQueryTimeoutMs);
  const streams = photoshopEventStreams(
    link,
    {
      selection: () => run<HostRect | null>(eventSignal(), "selection.get", {}).catch(() => null),
      activeLayers: () => run<HostLayer[]>(eventSignal(), "layer.active", {}).catch(() => null),
      preview: () => preview(eventSignal(), undefined, EVENT_PREVIEW_MAX_SIZE).catch(() => null),
    },
    limits.eventDebounceMs,
  );

  /** A script's deadline: the call's own signal, shortened to `timeoutMs`. */
  const withTimeout = (ctx: HostCallContext, timeoutMs: number): AbortSignal => eitherSignal(ctx.signal, AbortSignal.timeout(timeoutMs));

  const filesystem = options.filesystem ?? "local";
  return {
    kind: "photoshop",
    eventTypes: PHOTOSHOP_EVENTS,
    filesystem,
    scriptsReachFiles: true,
    lost$: link.lost$,

    async connect(): Promise<HostInfo> {
      const version = await link.open();
      log.info({ actor: "host", editor: "photoshop", version }, "connected to Photoshop");
      return { hostVersion: `photoshop ${version}` };
    },

    close: () => link.close(),

    events: (type) => streams.get(type),

    listDocuments: (ctx) => run<HostDocument[]>(ctx.signal, "document.list"),
    currentDocument: (ctx) => getDocument(ctx.signal, undefined),
    getDocument: (ctx, documentId) => getDocument(ctx.signal, documentId),

    openDocument: (ctx, path) => run<HostDocument>(ctx.signal, "document.open", { path }),

    async createDocument(ctx, { width, height, name, background }): Promise<HostDocument> {
      if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
        throw new BridgeError("BAD_REQUEST", "Document width and height must be positive integers", { details: { width, height } });
      }
      const color = (background ?? "white").toLowerCase();
      if (!/^(white|transparent|#[0-9a-f]{6})$/.test(color)) {
        throw new BridgeError("BAD_REQUEST", "background must be white, transparent or #rrggbb on Photoshop", { details: { background } });
      }
      return run<HostDocument>(ctx.signal, "document.create", { width, height, name, background: color });
    },

    async closeDocument(ctx, documentId): Promise<number> {
      return (await run<{ documentId: number }>(ctx.signal, "document.close", { documentId })).documentId;
    },

    async saveDocument(ctx, { documentId, path, backup }) {
      const ext = extname(path).toLowerCase();
      if (ext !== ".psd" && ext !== ".psb" && ext !== "") {
        throw new BridgeError("BAD_REQUEST", "document:save writes PSD; use document:export for flattened images", { details: { path } });
      }
      const target = ext === "" ? `${path}.psd` : path;
      // Photoshop writes the file itself; on this machine the bridge first keeps a copy of what it replaces.
      const backupPath = backup && filesystem === "local" ? await copyBackup(target) : undefined;
      const saved = await run<{ path: string }>(ctx.signal, "document.save", { documentId, path: target });
      return { path: saved.path, format: "psd", ...(backupPath !== undefined ? { backupPath } : {}) };
    },

    async exportDocumentFile(ctx, { documentId, path, format, quality }) {
      const chosen = format ?? formatForExtension(extname(path));
      if (!chosen) throw new BridgeError("BAD_REQUEST", UNKNOWN_FILE_FORMAT, { details: { path } });
      const image = await renderFile(chosen, (f) => exportDocument(ctx.signal, { documentId, format: f, quality }));
      await writeFileAtomic(path, image.bytes);
      return { path, format: chosen, width: image.width, height: image.height, size: image.bytes.byteLength };
    },

    getLayers: (ctx, documentId) => run<HostLayer[]>(ctx.signal, "document.layers", { documentId }),

    getLayer: (ctx, { documentId, ref, children }) => run<HostLayer | null>(ctx.signal, "layer.get", { documentId, ref, children: children === true }),

    selectLayers: (ctx, { documentId, ids }) => run<HostLayer[]>(ctx.signal, "layer.select", { documentId, ids: [...new Set(ids)] }),

    async importImage(ctx, params): Promise<HostLayer> {
      const bytes = decodeImageSource(params.image);
      let image = sharp(bytes, { limitInputPixels: MAX_IMPORT_PIXELS });
      const meta = await image.metadata().catch(() => {
        throw new BridgeError("BAD_REQUEST", "The image cannot be decoded", { details: { bytes: bytes.byteLength } });
      });
      if (params.size) image = image.resize(params.size.width, params.size.height, { fit: "fill" });
      const png = await image.png().toBuffer();
      // Photoshop opens files, not bytes: hand it a private temp file and remove it afterwards.
      const path = join(tmpdir(), `bridge-import-${randomUUID()}.png`);
      await writeFile(path, png, { mode: 0o600 });
      try {
        const above: LayerRef | undefined =
          params.layerId !== undefined ? { by: "id", id: params.layerId } : params.layerIndex !== undefined ? { by: "index", index: params.layerIndex } : undefined;
        return await run<HostLayer>(ctx.signal, "layer.place", {
          documentId: params.documentId,
          path,
          name: params.name ?? `Layer ${meta.width}×${meta.height}`,
          x: params.position?.x ?? 0,
          y: params.position?.y ?? 0,
          above,
        });
      } finally {
        await rm(path, { force: true });
      }
    },

    exportDocumentImage: (ctx, options) => exportDocument(ctx.signal, options),

    exportLayerImage: (ctx, options) => exportLayer(ctx.signal, options),

    async exportLayerWithSelectedPath(ctx, options): Promise<EncodedImage> {
      const path = await run<SelectionPath | null>(ctx.signal, "selection.path", { documentId: options.documentId, expand: 0 });
      if (path === null) throw new BridgeError("BAD_REQUEST", "There is no selection whose path could be drawn", { details: { documentId: options.documentId } });
      const stroke = options.strokeColor ?? "#ff0000";
      if (!/^#[0-9a-fA-F]{6}$/.test(stroke)) throw new BridgeError("BAD_REQUEST", "strokeColor must be #rrggbb", { details: { strokeColor: stroke } });
      const strokeWidth = options.strokeWidth ?? 2;
      return exportLayer(ctx.signal, options, async (bounds, size) => {
        const sx = size.width / Math.max(1, bounds.right - bounds.left);
        const sy = size.height / Math.max(1, bounds.bottom - bounds.top);
        const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}"><path d="${path.svg}" transform="scale(${sx} ${sy}) translate(${-bounds.left} ${-bounds.top})" fill="none" stroke="${stroke}" stroke-width="${strokeWidth}" vector-effect="non-scaling-stroke"/></svg>`;
        return Buffer.from(svg);
      });
    },

    layerPreview: (ctx, { documentId, maxSize }) => preview(ctx.signal, documentId, maxSize),

    getSelection: (ctx, documentId) => run<HostRect | null>(ctx.signal, "selection.get", { documentId }),

    async setSelection(ctx, { documentId, rect }): Promise<HostRect | null> {
      const doc = await getDocument(ctx.signal, documentId);
      const clipped = rect === null ? null : clipToCanvas(rect, doc.width, doc.height);
      return run<HostRect | null>(ctx.signal, "selection.set", { documentId: doc.id, rect: clipped });
    },

    async setSelectionShape(ctx, { documentId, shape }): Promise<HostRect | null> {
      const points = shape.kind === "ellipse" ? [] : shape.points;
      if (shape.kind === "polygon" && points.length < 3) {
        throw new BridgeError("BAD_REQUEST", "A polygon selection needs at least 3 points", { details: { points: points.length } });
      }
      return run<HostRect | null>(ctx.signal, "selection.shape", { documentId, shape });
    },

    async getSelectionPath(ctx, { documentId, expand }) {
      // The script answers bare path data; every editor answers a standalone SVG document.
      const path = await run<SelectionPath | null>(ctx.signal, "selection.path", { documentId, expand });
      return path === null ? null : toSelectionPath(path.svg, path);
    },

    autoCutout: (ctx, { documentId, layerId }) => run<boolean>(ctx.signal, "action.autoCutout", { documentId, layerId }),

    removeBackground: (ctx, { documentId, layerId }) => run<{ success: boolean }>(ctx.signal, "action.removeBackground", { documentId, layerId }),

    async runScript(ctx, { script, language, timeoutMs }): Promise<unknown> {
      if (language !== undefined && language !== "extendscript" && language !== "javascript") {
        throw new BridgeError("NOT_SUPPORTED", `Photoshop runs ExtendScript, not ${language}`, { details: { capability: "jsx:run", language } });
      }
      if (script.length > limits.maxScriptChars) {
        throw new BridgeError("PAYLOAD_TOO_LARGE", `Scripts are limited to ${limits.maxScriptChars} characters`, { details: { length: script.length } });
      }
      // The completion value as Photoshop's text (reference B.7): not guessed into JSON.
      return link.evaluate(script, withTimeout(ctx, timeoutMs));
    },

    async executeScript(ctx, { name, params, timeoutMs }): Promise<unknown> {
      const { source } = await readNamedScript(scriptDirs, name, { extension: ".jsx", language: "ExtendScript", maxBytes: limits.maxScriptChars });
      return link.evaluate(`${paramsPrefix(params)}${source}`, withTimeout(ctx, timeoutMs));
    },
  };
}
