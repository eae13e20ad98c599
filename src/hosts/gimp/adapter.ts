import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { Subject, type Observable } from "rxjs";
import type { Logger } from "../../logger.js";
import { DEFAULT_MAX_OPEN_FILE_BYTES, replaceWithFile, temporarySibling, writeFileAtomic, type FileFeatures } from "../../files/index.js";
import { BridgeError, type DataLoss, type ErrorCode, type HostDocument, type HostLayer, type HostRect, type ImageFormat } from "../../protocol/index.js";
import { isLoopbackHost } from "../../loopback.js";
import { gimpSaveLosses, sourceFeatures } from "./files.js";
import type { GimpConnectOptions } from "../factory.js";
import type { EncodedImage, ExportOptions, HostAdapter, HostCallContext, HostInfo, LayerRef } from "../host.js";
import { GimpClient } from "./client.js";
import { GimpEvents } from "./events.js";
import { clipToCanvas, parseColor } from "./geometry.js";
import { targetSize } from "../_internal/target-size.js";
import { formatForExtension, renderFile, UNKNOWN_FILE_FORMAT } from "../_internal/file-format.js";
import { convert, strokePath, svgPathData, takePng } from "./images.js";
import { decodeImportImage } from "./import.js";
import { parseDocument, parseTree, requireRef, resolveRef, withoutChildren, type LayerTree } from "./layers.js";
import { DEFAULT_GIMP_CALL_TIMEOUT_MS, DEFAULT_OUTLINE_COLOR, DEFAULT_OUTLINE_WIDTH, DEFAULT_POLL_INTERVAL_MS, MAX_DOCUMENT_PIXELS, MAX_EXPORT_PIXELS, MAX_SCRIPT_BYTES, POLL_TIMEOUT_MS } from "./limits.js";
import { asList, asNumber, int, lit, num, sexpToJson, type Sexp } from "./scheme.js";
import { SAMPLE_SCRIPT } from "./sample.js";
import { toScheme } from "./scripts.js";
import { readNamedScript } from "../_internal/named-script.js";
import { GimpSupervisor } from "./supervisor.js";
import type { Endpoint } from "./wire.js";

/** Options of {@link createGimpHost}. */
export interface GimpHostOptions extends GimpConnectOptions {
  /** Folders `jsx:execute` may run named Script-Fu files (`name.scm`) from (never outside them). @default [] */
  scriptDirs?: readonly string[] | undefined;
  logger?: Logger | undefined;
  /**
   * Deadline of one Script-Fu call. GIMP has no server-side timeout and one stuck call blocks every client, so a
   * call past it (or abandoned by the bridge's own deadline) restarts a supervised GIMP.
   * @default DEFAULT_GIMP_CALL_TIMEOUT_MS (120 s)
   */
  callTimeoutMs?: number | undefined;
  /** How long a started GIMP may take to open its Script-Fu port. @default DEFAULT_GIMP_START_TIMEOUT_MS */
  startTimeoutMs?: number | undefined;
  /** Event poll period while a client subscribes. @default DEFAULT_POLL_INTERVAL_MS */
  pollIntervalMs?: number | undefined;
  /**
   * On every `connect()`, close all images and build the sample document (tests, demos). Destroys unsaved work in
   * an attached GIMP, hence off by default.
   * @default false
   */
  sample?: boolean | undefined;
  /** Largest file the bridge reads to learn what a file GIMP opens holds. @default DEFAULT_MAX_OPEN_FILE_BYTES */
  maxSourceBytes?: number | undefined;
}

/** The GIMP adapter: a `HostAdapter` plus what tests and operators need to see of the process. */
export interface GimpHost extends HostAdapter {
  /** Process id of the supervised GIMP (undefined when attached or not running). */
  readonly pid: number | undefined;
  /** The Script-Fu endpoint in use. */
  readonly endpoint: Endpoint | undefined;
}

/** The layered format of a save path: GIMP saves `.psd` and `.xcf`; flat images go through `document:export`. */
function layeredFormat(path: string): "psd" | "xcf" {
  const ext = extname(path).toLowerCase();
  if (ext !== ".psd" && ext !== ".xcf") {
    throw new BridgeError("BAD_REQUEST", "GIMP saves layered documents as .psd or .xcf; use document:export for flat images", { details: { path } });
  }
  return ext === ".psd" ? "psd" : "xcf";
}

/** Every layer of a tree, groups before their children. */
function flattenTree(layers: readonly HostLayer[]): HostLayer[] {
  return layers.flatMap((layer) => [layer, ...flattenTree(layer.children ?? [])]);
}

/** Parses `host:port` of `--gimp-attach`. */
export function parseAttach(value: string): Endpoint {
  const match = /^(.+):(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65_535) {
    throw new BridgeError("BAD_REQUEST", `--gimp-attach wants host:port, got "${value}"`, { details: { attach: value } });
  }
  return { host: match[1]!.replace(/^\[(.*)\]$/, "$1"), port };
}

function toRect(bounds: Sexp): HostRect | null {
  const b = asList(bounds, "selection bounds");
  if (b.length < 4) return null;
  const [x1, y1, x2, y2] = b.map((v) => asNumber(v, "selection bound")) as [number, number, number, number];
  return { x: x1, y: y1, width: x2 - x1, height: y2 - y1 };
}

/**
 * GIMP 2.10 driven headless through its Script-Fu server (DESIGN §4, reference/gimp.md). Without `attach` the
 * adapter starts and supervises `gimp-console-2.10` itself: a crash or a call past its deadline kills the process
 * group, `lost$` fires, and the bridge's reconnect starts a fresh GIMP (every image is lost; ids restart).
 * With `attach` it uses a server someone else runs and never restarts it. Index spaces: `docs/gimp.md`.
 *
 * @example
 * const host = createGimpHost({ binary: "gimp-console-2.10", attach: undefined });
 * const bridge = createBridge({ host });
 */
export function createGimpHost(options: GimpHostOptions): GimpHost {
  const log = options.logger;
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_GIMP_CALL_TIMEOUT_MS;
  const attached = options.attach !== undefined ? parseAttach(options.attach) : undefined;
  const supervisor = attached ? undefined : new GimpSupervisor({ binary: options.binary, startTimeoutMs: options.startTimeoutMs, logger: log });
  const lost$ = new Subject<Error>();
  let connected = false;
  let workDir: string | undefined;
  let ownWorkDir = false;
  /** The document the bridge treats as active: GIMP without a display has no focus of its own. */
  let activeImage: number | undefined;
  /** What the file each image was opened from held (for the no-silent-loss rule), by image id. */
  const sources = new Map<number, FileFeatures>();
  /** A GIMP on another machine opens and writes paths there: the bridge can only check them lexically. */
  const filesystem = attached !== undefined && !isLoopbackHost(attached.host) ? "remote" : "local";
  let fileCounter = 0;

  const goneAway = (reason: string): void => {
    if (!connected) return;
    connected = false;
    activeImage = undefined;
    sources.clear();
    client.reset();
    client.failQueued(new BridgeError("HOST_UNAVAILABLE", `GIMP went away: ${reason}`, { details: { reason } }));
    events.stopAll();
    lost$.next(new Error(reason));
  };

  const client: GimpClient = new GimpClient({
    endpoint: () => (attached ?? supervisor?.endpoint),
    workDir: () => {
      if (workDir === undefined) throw new BridgeError("HOST_UNAVAILABLE", "GIMP is not connected");
      return workDir;
    },
    fault: (reason, kind) => {
      if (!supervisor) {
        // Someone else runs this GIMP: a stuck call cannot be stopped from here; a vanished one is reported.
        if (kind === "gone") goneAway(reason);
        return { restarted: false };
      }
      if (!connected) return { restarted: false };
      log?.warn({ actor: "host", editor: "gimp", reason }, "restarting GIMP");
      void supervisor.kill().then(() => goneAway(reason));
      return { restarted: true };
    },
  });

  if (supervisor) supervisor.onUnexpectedExit = (reason) => goneAway(reason);

  const ctxOptions = (ctx: HostCallContext | undefined, errorCode?: ErrorCode, timeoutMs = callTimeoutMs) => ({
    timeoutMs,
    signal: ctx?.signal,
    errorCode,
  });
  const call = (ctx: HostCallContext | undefined, form: string, errorCode?: ErrorCode): Promise<Sexp> =>
    client.call(form, ctxOptions(ctx, errorCode));

  const tempFile = (ext: string): string => {
    if (workDir === undefined) throw new BridgeError("HOST_UNAVAILABLE", "GIMP is not connected");
    return join(workDir, `f${process.pid}-${++fileCounter}${ext}`);
  };

  async function currentId(ctx: HostCallContext | undefined): Promise<number> {
    const ids = asList(await call(ctx, "(br-images)"), "image list").map((v) => asNumber(v, "image id"));
    if (activeImage !== undefined && ids.includes(activeImage)) return activeImage;
    if (ids.length === 0) throw new BridgeError("NO_DOCUMENT", "No image is open in GIMP");
    activeImage = ids[0]!; // newest first
    return activeImage;
  }

  const docId = (ctx: HostCallContext | undefined, documentId: number | undefined): Promise<number> =>
    documentId !== undefined ? Promise.resolve(documentId) : currentId(ctx);

  async function documentOf(ctx: HostCallContext | undefined, id: number): Promise<HostDocument> {
    return parseDocument(await call(ctx, `(br-doc ${int(id)})`));
  }

  async function treeOf(ctx: HostCallContext | undefined, id: number): Promise<LayerTree> {
    return parseTree(await call(ctx, `(br-tree ${int(id)})`));
  }

  const encodedFile = async (file: string, format: ImageFormat, quality: number | undefined): Promise<Uint8Array> =>
    convert(await takePng(file), format, quality);

  async function exportDocument(ctx: HostCallContext, id: number, exportOptions: Omit<ExportOptions, "documentId">): Promise<EncodedImage> {
    const doc = await documentOf(ctx, id);
    const size = targetSize(doc.width, doc.height, exportOptions, MAX_EXPORT_PIXELS);
    const file = tempFile(".png");
    await call(ctx, `(br-export-doc ${int(id)} ${int(size.width)} ${int(size.height)} ${lit(file)})`);
    const bytes = await encodedFile(file, exportOptions.format, exportOptions.quality);
    return { bytes, format: exportOptions.format, ...size, bounds: { left: 0, top: 0, right: doc.width, bottom: doc.height } };
  }

  async function exportLayer(ctx: HostCallContext | undefined, id: number, layer: HostLayer, exportOptions: ExportOptions): Promise<EncodedImage> {
    const size = targetSize(layer.rect.width, layer.rect.height, exportOptions, MAX_EXPORT_PIXELS);
    const file = tempFile(".png");
    await call(ctx, `(br-export-layer ${int(id)} ${int(layer.id)} ${int(size.width)} ${int(size.height)} ${lit(file)})`);
    const bytes = await encodedFile(file, exportOptions.format, exportOptions.quality);
    return { bytes, format: exportOptions.format, ...size, bounds: { ...layer.bounds } };
  }

  async function preview(ctx: HostCallContext | undefined, documentId: number | undefined, maxSize: number) {
    const id = await docId(ctx, documentId);
    const tree = await treeOf(ctx, id);
    const layer = resolveRef(tree, { by: "active" }, id);
    if (!layer) return null;
    // Without a caller (event previews) only the adapter's own call deadline applies.
    const image = await exportLayer(ctx, id, layer, { format: "png", maxSize });
    return { documentId: id, id: layer.id, name: layer.name, index: layer.index, width: image.width, height: image.height, data: `data:image/png;base64,${Buffer.from(image.bytes).toString("base64")}` };
  }

  async function layerTarget(ctx: HostCallContext, id: number, layerId: number | undefined): Promise<HostLayer> {
    const tree = await treeOf(ctx, id);
    return requireRef(tree, layerId !== undefined ? { by: "id", id: layerId } : { by: "active" }, id);
  }

  const events = new GimpEvents({
    intervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    busy: () => client.pending > 0 || !connected,
    poll: async () => {
      const fields = asList(await client.call(`(br-poll-current ${int(activeImage ?? -1)})`, { timeoutMs: POLL_TIMEOUT_MS }), "poll");
      if (fields.length > 0) activeImage = asNumber(fields[0], "image id");
      return fields;
    },
    activeLayers: async (id) => {
      const tree = await treeOf(undefined, id);
      const layer = resolveRef(tree, { by: "active" }, id);
      return layer ? [withoutChildren(layer)] : [];
    },
    preview: (id, maxSize) => preview(undefined, id, maxSize),
    log,
  });

  const host: GimpHost = {
    kind: "gimp",
    filesystem,
    scriptsReachFiles: true,
    lost$,
    get pid() {
      return supervisor?.pid;
    },
    get endpoint() {
      return attached ?? supervisor?.endpoint;
    },

    async connect(): Promise<HostInfo> {
      if (supervisor) {
        await supervisor.start();
        workDir = await supervisor.workDir();
      } else if (workDir === undefined) {
        workDir = await mkdtemp(join(tmpdir(), "bridge-gimp-io-"));
        ownWorkDir = true;
      }
      client.reset();
      let version: Sexp;
      try {
        version = await client.call("(car (gimp-version))", { timeoutMs: callTimeoutMs });
      } catch (error) {
        if (supervisor) await supervisor.kill();
        throw error;
      }
      if (options.sample === true) await client.call(SAMPLE_SCRIPT, { timeoutMs: callTimeoutMs });
      activeImage = undefined;
      connected = true;
      return { hostVersion: `gimp ${String(version)}` };
    },

    async close(): Promise<void> {
      connected = false;
      events.stopAll();
      client.failQueued(new BridgeError("SHUTTING_DOWN", "The GIMP host is closing"));
      if (supervisor) await supervisor.stop();
      else if (ownWorkDir && workDir !== undefined) await rm(workDir, { recursive: true, force: true });
      workDir = undefined;
    },

    events: (type) => events.stream(type) as Observable<unknown> | undefined,

    async listDocuments(ctx): Promise<HostDocument[]> {
      return asList(await call(ctx, "(br-docs)"), "documents").map(parseDocument).reverse();
    },

    async currentDocument(ctx): Promise<HostDocument> {
      return documentOf(ctx, await currentId(ctx));
    },

    async getDocument(ctx, documentId): Promise<HostDocument> {
      return documentOf(ctx, await docId(ctx, documentId));
    },

    async openDocument(ctx, path): Promise<HostDocument> {
      const features = filesystem === "local" ? await sourceFeatures(path, options.maxSourceBytes ?? DEFAULT_MAX_OPEN_FILE_BYTES, ctx.signal) : [];
      const id = asNumber(await call(ctx, `(br-open ${lit(path)})`, "BAD_REQUEST"), "image id");
      sources.set(id, features);
      activeImage = id;
      return documentOf(ctx, id);
    },

    async createDocument(ctx, { width, height, name, background }): Promise<HostDocument> {
      if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
        throw new BridgeError("BAD_REQUEST", "Document width and height must be positive integers", { details: { width, height } });
      }
      if (width * height > MAX_DOCUMENT_PIXELS) {
        throw new BridgeError("PAYLOAD_TOO_LARGE", `Document of ${width}×${height} exceeds ${MAX_DOCUMENT_PIXELS} pixels`, {
          details: { width, height, maxPixels: MAX_DOCUMENT_PIXELS },
        });
      }
      const [r, g, b, a] = parseColor(background ?? "white");
      const label = name ?? "Untitled";
      const id = asNumber(
        await call(ctx, `(br-create ${int(width)} ${int(height)} ${lit(label)} ${a === 0 ? 0 : 1} ${int(r)} ${int(g)} ${int(b)})`),
        "image id",
      );
      activeImage = id;
      return documentOf(ctx, id);
    },

    async closeDocument(ctx, documentId): Promise<number> {
      const id = await docId(ctx, documentId);
      await call(ctx, `(begin (br-image ${int(id)}) (gimp-image-delete ${int(id)}) #t)`);
      sources.delete(id);
      if (activeImage === id) activeImage = undefined;
      return id;
    },

    async saveLosses(ctx, { documentId, path }): Promise<DataLoss[]> {
      const format = layeredFormat(path);
      const text = format === "psd" ? flattenTree((await treeOf(ctx, documentId)).roots).filter((l) => l.kind === "text").map((l) => l.id) : [];
      return gimpSaveLosses(sources.get(documentId) ?? [], format, text);
    },

    async saveDocument(ctx, { documentId, path, backup }) {
      const format = layeredFormat(path);
      const psd = format === "psd" ? "#t" : "#f";
      if (filesystem === "remote") {
        // GIMP writes on its own machine: no temporary file or backup can be arranged from here.
        await call(ctx, `(begin (br-save ${int(documentId)} ${lit(path)} ${psd}) (br-saved ${int(documentId)} ${lit(path)}))`, "BAD_REQUEST");
        return { path, format };
      }
      const temp = temporarySibling(path);
      try {
        await call(ctx, `(br-save ${int(documentId)} ${lit(temp)} ${psd})`, "BAD_REQUEST");
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
      const written = await replaceWithFile(temp, path, { backup });
      await call(ctx, `(br-saved ${int(documentId)} ${lit(path)})`);
      return { path, format, ...(written.backupPath !== undefined ? { backupPath: written.backupPath } : {}) };
    },

    async exportDocumentFile(ctx, { documentId, path, format, quality }) {
      const id = await docId(ctx, documentId);
      const chosen = format ?? formatForExtension(extname(path));
      if (!chosen) throw new BridgeError("BAD_REQUEST", UNKNOWN_FILE_FORMAT, { details: { path } });
      const image = await renderFile(chosen, (f) => exportDocument(ctx, id, { format: f, quality }));
      await writeFileAtomic(path, image.bytes);
      return { path, format: chosen, width: image.width, height: image.height, size: image.bytes.byteLength };
    },

    async getLayers(ctx, documentId): Promise<HostLayer[]> {
      return (await treeOf(ctx, await docId(ctx, documentId))).roots;
    },

    async getLayer(ctx, { documentId, ref, children }): Promise<HostLayer | null> {
      const id = await docId(ctx, documentId);
      const layer = resolveRef(await treeOf(ctx, id), ref, id);
      return layer ? withoutChildren(layer, children === true) : null;
    },

    async selectLayers(ctx, { documentId, ids }): Promise<HostLayer[]> {
      const id = await docId(ctx, documentId);
      const unique = [...new Set(ids)];
      if (unique.length !== 1) {
        throw new BridgeError("NOT_SUPPORTED", "GIMP 2.10 has exactly one active layer; pass one id", {
          details: { capability: "layer:select:multiple", editor: "gimp", ids: unique.length },
        });
      }
      const tree = await treeOf(ctx, id);
      const layer = requireRef(tree, { by: "id", id: unique[0]! }, id);
      await call(ctx, `(gimp-image-set-active-layer ${int(id)} ${int(layer.id)})`);
      return [withoutChildren(layer)];
    },

    async importImage(ctx, params): Promise<HostLayer> {
      const id = await docId(ctx, params.documentId);
      const tree = await treeOf(ctx, id);
      const ref: LayerRef =
        params.layerId !== undefined
          ? { by: "id", id: params.layerId }
          : params.layerIndex !== undefined
            ? { by: "index", index: params.layerIndex }
            : { by: "active" };
      const target = resolveRef(tree, ref, id);
      const file = tempFile(".png");
      await writeFile(file, await decodeImportImage(params.image, params.size, ctx.signal));
      let layerId: number;
      try {
        const x = params.position?.x ?? 0;
        const y = params.position?.y ?? 0;
        layerId = asNumber(
          await call(
            ctx,
            `(let ((p (br-place ${int(id)} ${int(target?.id ?? -1)}))) (br-import ${int(id)} ${lit(file)} (car p) (cadr p) ${lit(params.name ?? "Imported Layer")} ${num(Math.round(x))} ${num(Math.round(y))}))`,
            "BAD_REQUEST",
          ),
          "layer id",
        );
      } finally {
        await rm(file, { force: true });
      }
      return requireRef(await treeOf(ctx, id), { by: "id", id: layerId }, id);
    },

    async exportDocumentImage(ctx, exportOptions): Promise<EncodedImage> {
      return exportDocument(ctx, await docId(ctx, exportOptions.documentId), exportOptions);
    },

    async exportLayerImage(ctx, exportOptions): Promise<EncodedImage> {
      const id = await docId(ctx, exportOptions.documentId);
      const layer = requireRef(await treeOf(ctx, id), exportOptions.ref, id);
      return exportLayer(ctx, id, layer, exportOptions);
    },

    layerPreview: (ctx, { documentId, maxSize }) => preview(ctx, documentId, maxSize),

    async getSelection(ctx, documentId): Promise<HostRect | null> {
      const id = await docId(ctx, documentId);
      return toRect(await call(ctx, `(begin (br-image ${int(id)}) (br-selection ${int(id)}))`));
    },

    async setSelection(ctx, { documentId, rect }): Promise<HostRect | null> {
      const id = await docId(ctx, documentId);
      const doc = await documentOf(ctx, id);
      const clipped = rect === null ? null : clipToCanvas(rect, doc.width, doc.height);
      const [x, y, w, h] = clipped ? [clipped.x, clipped.y, clipped.width, clipped.height] : [0, 0, 0, 0];
      return toRect(await call(ctx, `(br-set-selection ${int(id)} ${int(x)} ${int(y)} ${int(w)} ${int(h)})`));
    },

    async getSelectionPath(ctx, { documentId, expand }) {
      const id = await docId(ctx, documentId);
      const file = tempFile(".svg");
      try {
        const rect = toRect(await call(ctx, `(br-selection-path ${int(id)} ${int(expand)} ${lit(file)})`));
        if (!rect) return null;
        return { svg: await readFile(file, "utf8"), ...rect };
      } finally {
        await rm(file, { force: true });
      }
    },

    async exportLayerWithSelectedPath(ctx, exportOptions): Promise<EncodedImage> {
      const id = await docId(ctx, exportOptions.documentId);
      const layer = requireRef(await treeOf(ctx, id), exportOptions.ref, id);
      const [r, g, b, a] = parseColor(exportOptions.strokeColor ?? DEFAULT_OUTLINE_COLOR);
      const strokeWidth = exportOptions.strokeWidth ?? DEFAULT_OUTLINE_WIDTH;
      const size = targetSize(layer.rect.width, layer.rect.height, exportOptions, MAX_EXPORT_PIXELS);
      const svgFile = tempFile(".svg");
      const pngFile = tempFile(".png");
      let outline: string | undefined;
      try {
        const rect = toRect(await call(ctx, `(br-selection-path ${int(id)} 0 ${lit(svgFile)})`));
        if (rect) outline = svgPathData(await readFile(svgFile, "utf8"));
      } finally {
        await rm(svgFile, { force: true });
      }
      await call(ctx, `(br-export-layer ${int(id)} ${int(layer.id)} ${int(size.width)} ${int(size.height)} ${lit(pngFile)})`);
      let png = await takePng(pngFile);
      if (outline) png = await strokePath(png, outline, layer.rect, size, { rgba: [r, g, b, a], width: strokeWidth });
      const bytes = await convert(png, exportOptions.format, exportOptions.quality);
      return { bytes, format: exportOptions.format, ...size, bounds: { ...layer.bounds } };
    },

    async removeBackground(ctx, { documentId, layerId }): Promise<{ success: boolean }> {
      const id = await docId(ctx, documentId);
      const layer = await layerTarget(ctx, id, layerId);
      if (layer.kind === "group") throw new BridgeError("BAD_REQUEST", "Remove the background of a pixel layer, not a group", { details: { layerId: layer.id } });
      return { success: (await call(ctx, `(br-remove-background ${int(id)} ${int(layer.id)})`)) === true };
    },

    async autoCutout(ctx, { documentId, layerId }): Promise<boolean> {
      const id = await docId(ctx, documentId);
      const layer = await layerTarget(ctx, id, layerId);
      if (layer.kind === "group") throw new BridgeError("BAD_REQUEST", "Cut out a pixel layer, not a group", { details: { layerId: layer.id } });
      const doc = await documentOf(ctx, id);
      // The hint is the current selection, else the canvas without a 5 % margin (GIMP has no subject detector).
      const hint = toRect(await call(ctx, `(br-selection ${int(id)})`)) ?? {
        x: Math.floor(doc.width * 0.05),
        y: Math.floor(doc.height * 0.05),
        width: Math.max(1, Math.floor(doc.width * 0.9)),
        height: Math.max(1, Math.floor(doc.height * 0.9)),
      };
      const form = `(br-cutout ${int(id)} ${int(layer.id)} ${int(hint.x)} ${int(hint.y)} ${int(hint.width)} ${int(hint.height)})`;
      return (await call(ctx, form)) === true;
    },

    async runScript(ctx, { script, language, timeoutMs }): Promise<unknown> {
      if (language !== "script-fu") {
        throw new BridgeError("NOT_SUPPORTED", 'GIMP cannot run JSX or JavaScript; send Script-Fu with language: "script-fu"', {
          details: { capability: "jsx:run", editor: "gimp", language: language ?? "javascript" },
        });
      }
      // A newline before the closing paren keeps a trailing `;` comment from swallowing it.
      const outcome = await client.run(`(begin ${script}\n)`, ctxOptions(ctx, "JSX_FAILED", Math.min(timeoutMs, callTimeoutMs)));
      return sexpToJson(outcome.value);
    },

    async executeScript(ctx, { name, params, timeoutMs }): Promise<unknown> {
      const { source } = await readNamedScript(options.scriptDirs ?? [], name, { extension: ".scm", language: "Script-Fu", maxBytes: MAX_SCRIPT_BYTES });
      // The script sees its params as `params`, an association list: (cdr (assoc "key" params)).
      const form = `(let ((params ${toScheme(params)})) ${source}\n)`;
      const outcome = await client.run(form, ctxOptions(ctx, "JSX_FAILED", Math.min(timeoutMs, callTimeoutMs)));
      return sexpToJson(outcome.value);
    },
  };
  return host;
}
