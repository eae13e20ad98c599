/**
 * The host side of the script editor API: named operations the guest prelude calls with JSON arguments. Every
 * argument is validated here (the guest is untrusted); failures are `BridgeError`s the guest can catch. Edits
 * are reported once per document when the run ends ({@link ScriptApi.flush}), so a script filling in a loop
 * emits one `documentChanged` and one debounced preview, not thousands.
 */
import { z } from "zod";
import { exportDocumentFile, resolveOpenPath, saveDocumentFile, type FileAccess } from "../../../files/index.js";
import { BridgeError, FileFormatSchema, ImageFormatSchema, issuesOf } from "../../../protocol/index.js";
import type { HostAdapter, HostCallContext } from "../../host.js";
import { parseColor } from "../color.js";
import type { Rgba } from "../color.js";
import type { EmbeddedDocument, EmbeddedLayer, PixelLayer } from "../document.js";
import { newDocumentContent } from "../document.js";
import { toDataUri } from "../encode.js";
import type { DocumentChanges, EmbeddedEvents } from "../events.js";
import { PSD_BLEND_MODES } from "../psd.js";
import { selectShape, selectionMask, setSelectionMask } from "../selection.js";
import type { DocumentStore } from "../store.js";
import { flattenLayers, requireLayerRef, toHostDocument, toHostLayer } from "../tree.js";
import type { LayerEntry } from "../tree.js";
import { addLayer, duplicateLayer, fillLayer, flattenDocument, removeLayer, translateLayer } from "./edits.js";

/** What the script API works on. */
export interface ScriptEnv {
  readonly store: DocumentStore;
  readonly events: EmbeddedEvents;
  /** The editor itself, for file operations (open, save, export) that are async. */
  readonly host: HostAdapter;
  /** The bridge's file rules: script paths resolve against the same files roots as clients' paths. */
  readonly files: FileAccess;
  /** Largest document a script may create (the host's `maxDocumentPixels`). */
  readonly maxDocumentPixels: number;
}

export interface ScriptApi {
  call(op: string, args: unknown): unknown;
  callAsync(op: string, args: unknown): Promise<unknown>;
  /** Emits the accumulated change events (also after a failed run: its edits happened). */
  flush(): void;
}

const docId = z.number().int().positive();
const layerId = z.number().int().positive();
const coordinate = z.number().int().min(-1_000_000).max(1_000_000);
const DocArgs = z.object({ doc: docId }).strict();
const LayerArgs = z.object({ doc: docId, layer: layerId }).strict();
const ColorArg = z.union([
  z.string().max(32),
  z.array(z.number().int().min(0).max(255)).min(3).max(4),
  z.object({ r: z.number(), g: z.number(), b: z.number(), a: z.number().optional() }).strict(),
]);
const filePath = z.string().min(1).max(4096);
const RectArg = z.object({ x: z.number(), y: z.number(), width: z.number().min(0), height: z.number().min(0) }).strict();

function parse<T>(schema: z.ZodType<T>, op: string, args: unknown): T {
  const result = schema.safeParse(args ?? {});
  if (!result.success) {
    throw new BridgeError("BAD_REQUEST", `Invalid arguments to ${op}`, { details: { op, issues: issuesOf(result.error) } });
  }
  return result.data;
}

function toRgba(color: z.infer<typeof ColorArg>): Rgba {
  if (typeof color === "string") return parseColor(color);
  const byte = (v: number): number => Math.min(255, Math.max(0, Math.round(v)));
  if (Array.isArray(color)) return [byte(color[0] ?? 0), byte(color[1] ?? 0), byte(color[2] ?? 0), byte(color[3] ?? 255)];
  return [byte(color.r), byte(color.g), byte(color.b), byte(color.a ?? 255)];
}

/** One script run's API over the editor. `ctx` is the run's call context (its abort signal). */
export function createScriptApi(env: ScriptEnv, ctx: HostCallContext): ScriptApi {
  const { store, events, host, files } = env;
  const changes = new Map<number, { doc: EmbeddedDocument; changes: DocumentChanges }>();

  const changed = (doc: EmbeddedDocument, what: DocumentChanges): void => {
    const seen = changes.get(doc.id)?.changes ?? {};
    changes.set(doc.id, {
      doc,
      changes: {
        pixels: seen.pixels === true || what.pixels === true,
        selection: seen.selection === true || what.selection === true,
        activeLayers: seen.activeLayers === true || what.activeLayers === true,
        layers: seen.layers === true || what.layers === true,
      },
    });
  };
  const entryOf = (doc: EmbeddedDocument, id: number): LayerEntry => requireLayerRef(doc, { by: "id", id });
  const pixelLayer = (entry: LayerEntry, op: string): PixelLayer => {
    if (entry.layer.kind === "group") {
      throw new BridgeError("BAD_REQUEST", `${op} needs a pixel layer; ${entry.layer.name} is a group`, { details: { op, layerId: entry.layer.id } });
    }
    return entry.layer;
  };
  const layerSummary = (layer: EmbeddedLayer): { id: number; kind: string } => ({ id: layer.id, kind: layer.kind });
  const activate = (doc: EmbeddedDocument): void => {
    if (store.active() === doc) return;
    store.activate(doc.id);
    events.activeDocumentChanged();
  };

  const sync: Record<string, (args: unknown, op: string) => unknown> = {
    "app.documents": () => store.list().map((doc) => doc.id),
    "app.activeDocument": () => store.active()?.id ?? null,
    "app.setActiveDocument": (args, op) => {
      activate(store.get(parse(DocArgs, op, args).doc));
      return null;
    },
    "app.createDocument": (args, op) => {
      const { width, height, name, background } = parse(
        z
          .object({
            width: z.number().int().positive(),
            height: z.number().int().positive(),
            name: z.string().min(1).max(255).optional(),
            background: ColorArg.optional(),
          })
          .strict(),
        op,
        args,
      );
      if (width * height > env.maxDocumentPixels) {
        throw new BridgeError("PAYLOAD_TOO_LARGE", `Document of ${width}×${height} exceeds ${env.maxDocumentPixels} pixels`, {
          details: { width, height, maxPixels: env.maxDocumentPixels },
        });
      }
      const doc = store.add(newDocumentContent(width, height, toRgba(background ?? "white")), { name: name ?? store.untitledName() });
      events.activeDocumentChanged();
      return doc.id;
    },
    "doc.info": (args, op) => toHostDocument(store.get(parse(DocArgs, op, args).doc)),
    "doc.layers": (args, op) => {
      const { doc: id, parent, flat } = parse(
        z.object({ doc: docId, parent: layerId.optional(), flat: z.boolean().optional() }).strict(),
        op,
        args,
      );
      const doc = store.get(id);
      if (flat) return flattenLayers(doc.layers).map((entry) => layerSummary(entry.layer));
      if (parent === undefined) return doc.layers.map(layerSummary);
      const group = entryOf(doc, parent).layer;
      return group.kind === "group" ? group.children.map(layerSummary) : [];
    },
    "doc.activeLayer": (args, op) => {
      const doc = store.get(parse(DocArgs, op, args).doc);
      const first = flattenLayers(doc.layers).find((entry) => doc.activeLayerIds.includes(entry.layer.id));
      return first ? layerSummary(first.layer) : null;
    },
    "doc.setActiveLayer": (args, op) => {
      const { doc: id, layer } = parse(LayerArgs, op, args);
      const doc = store.get(id);
      entryOf(doc, layer);
      doc.activeLayerIds = [layer];
      changed(doc, { activeLayers: true });
      return null;
    },
    "doc.addLayer": (args, op) => {
      const { doc: id, kind, name } = parse(
        z.object({ doc: docId, kind: z.enum(["pixel", "group"]), name: z.string().min(1).max(255).optional() }).strict(),
        op,
        args,
      );
      const doc = store.get(id);
      const layer = addLayer(doc, kind, name);
      changed(doc, { layers: true, activeLayers: true });
      return layerSummary(layer);
    },
    "doc.flatten": (args, op) => {
      const doc = store.get(parse(DocArgs, op, args).doc);
      const layer = flattenDocument(doc);
      changed(doc, { layers: true, pixels: true, activeLayers: true });
      return layerSummary(layer);
    },
    "doc.close": (args, op) => {
      const doc = store.get(parse(DocArgs, op, args).doc);
      const wasActive = store.active() === doc;
      store.remove(doc.id);
      changes.delete(doc.id);
      events.documentClosed(doc.id);
      if (wasActive) events.activeDocumentChanged();
      return null;
    },
    "selection.get": (args, op) => {
      const selection = store.get(parse(DocArgs, op, args).doc).selection;
      return selection ? { left: selection.x, top: selection.y, right: selection.x + selection.width, bottom: selection.y + selection.height } : null;
    },
    "selection.set": (args, op) => {
      const { doc: id, rect, ellipse, polygon } = parse(
        z
          .object({
            doc: docId,
            rect: RectArg.nullable().optional(),
            ellipse: RectArg.optional(),
            polygon: z.array(z.tuple([z.number(), z.number()])).min(3).optional(),
          })
          .strict(),
        op,
        args,
      );
      const doc = store.get(id);
      if (polygon !== undefined) selectShape(doc, { kind: "polygon", points: polygon.map(([x, y]) => ({ x, y })) });
      else if (ellipse !== undefined) selectShape(doc, { kind: "ellipse", rect: ellipse });
      else if (rect) selectShape(doc, { kind: "rect", rect });
      else setSelectionMask(doc, null);
      changed(doc, { selection: true });
      return null;
    },
    "layer.info": (args, op) => {
      const { doc: id, layer } = parse(LayerArgs, op, args);
      const doc = store.get(id);
      const entries = flattenLayers(doc.layers);
      const entry = entryOf(doc, layer);
      const parent = entries.find((candidate) => candidate.layer.kind === "group" && candidate.layer.children === entry.siblings);
      return { ...toHostLayer(entry, entries, false), parentId: parent?.layer.id ?? null, hasMask: entry.layer.kind !== "group" && entry.layer.mask !== undefined };
    },
    "layer.set": (args, op) => {
      const { doc: id, layer, name, visible, opacity, blendMode } = parse(
        z
          .object({
            doc: docId,
            layer: layerId,
            name: z.string().min(1).max(255).optional(),
            visible: z.boolean().optional(),
            opacity: z.number().min(0).max(100).optional(),
            blendMode: z.string().max(32).optional(),
          })
          .strict(),
        op,
        args,
      );
      const doc = store.get(id);
      const target = entryOf(doc, layer).layer;
      if (blendMode !== undefined) {
        const allowed = target.kind === "group" || blendMode !== "pass through";
        if (!PSD_BLEND_MODES.has(blendMode) || !allowed) {
          throw new BridgeError("BAD_REQUEST", `Unknown blend mode "${blendMode}"`, { details: { blendMode, allowed: [...PSD_BLEND_MODES] } });
        }
        target.blendMode = blendMode;
      }
      if (name !== undefined) target.name = name;
      if (visible !== undefined) target.visible = visible;
      if (opacity !== undefined) target.opacity = Math.round((opacity / 100) * 255);
      changed(doc, { layers: true, pixels: visible !== undefined || opacity !== undefined || blendMode !== undefined });
      return null;
    },
    "layer.translate": (args, op) => {
      const { doc: id, layer, dx, dy } = parse(z.object({ doc: docId, layer: layerId, dx: coordinate, dy: coordinate }).strict(), op, args);
      const doc = store.get(id);
      translateLayer(entryOf(doc, layer).layer, dx, dy);
      changed(doc, { pixels: true });
      return null;
    },
    "layer.duplicate": (args, op) => {
      const { doc: id, layer, name } = parse(z.object({ doc: docId, layer: layerId, name: z.string().min(1).max(255).optional() }).strict(), op, args);
      const doc = store.get(id);
      const copy = duplicateLayer(doc, entryOf(doc, layer), name);
      changed(doc, { layers: true, pixels: true });
      return layerSummary(copy);
    },
    "layer.remove": (args, op) => {
      const { doc: id, layer } = parse(LayerArgs, op, args);
      const doc = store.get(id);
      const before = doc.activeLayerIds.length;
      removeLayer(doc, entryOf(doc, layer));
      changed(doc, { layers: true, pixels: true, activeLayers: doc.activeLayerIds.length !== before });
      return null;
    },
    "layer.fill": (args, op) => {
      const { doc: id, layer, color, clear } = parse(
        z.object({ doc: docId, layer: layerId, color: ColorArg, clear: z.boolean().optional() }).strict(),
        op,
        args,
      );
      const doc = store.get(id);
      const target = pixelLayer(entryOf(doc, layer), op);
      fillLayer(doc, target, clear ? [0, 0, 0, 0] : toRgba(color), selectionMask(doc), clear === true);
      changed(doc, { pixels: true });
      return null;
    },
  };

  const FileExportArgs = z
    .object({
      doc: docId,
      path: filePath,
      format: FileFormatSchema.optional(),
      quality: z.number().int().min(1).max(100).optional(),
      overwrite: z.boolean().optional(),
    })
    .strict();
  const ImageArgs = z
    .object({
      doc: docId,
      format: ImageFormatSchema.optional(),
      quality: z.number().int().min(1).max(100).optional(),
      maxSize: z.number().int().min(1).max(16384).optional(),
    })
    .strict();

  const asynchronous: Record<string, (args: unknown, op: string) => Promise<unknown>> = {
    "app.open": async (args, op) => {
      const { path } = parse(z.object({ path: filePath }).strict(), op, args);
      if (!host.openDocument) throw new BridgeError("NOT_SUPPORTED", "Opening files is not supported", { details: { capability: "document:open" } });
      return (await host.openDocument(ctx, (await resolveOpenPath(files, host, path)).path)).id;
    },
    "doc.save": async (args, op) => {
      const { doc, path, allowLossy, backup } = parse(
        z.object({ doc: docId, path: filePath.optional(), allowLossy: z.boolean().optional(), backup: z.boolean().optional() }).strict(),
        op,
        args,
      );
      return saveDocumentFile(host, ctx, files, { documentId: doc, savePath: path, allowLossy, backupOnOverwrite: backup });
    },
    "selection.selectSubject": async (args, op) => {
      const { doc, layer } = parse(z.object({ doc: docId, layer: layerId.optional() }).strict(), op, args);
      if (!host.autoCutout) throw new BridgeError("NOT_SUPPORTED", "Select Subject is not supported", { details: { capability: "action:autoCutout" } });
      return host.autoCutout(ctx, { documentId: doc, layerId: layer });
    },
    "layer.removeBackground": async (args, op) => {
      const { doc, layer } = parse(LayerArgs, op, args);
      if (!host.removeBackground) {
        throw new BridgeError("NOT_SUPPORTED", "Remove Background is not supported", { details: { capability: "action:removeBackground" } });
      }
      return (await host.removeBackground(ctx, { documentId: doc, layerId: layer })).success;
    },
    "doc.exportFile": async (args, op) => {
      const { doc, path, format, quality, overwrite } = parse(FileExportArgs, op, args);
      return exportDocumentFile(host, ctx, files, { documentId: doc, path, format, quality, overwrite });
    },
    "doc.exportImage": async (args, op) => {
      const { doc, format, quality, maxSize } = parse(ImageArgs, op, args);
      const image = await host.exportDocumentImage(ctx, { documentId: doc, format: format ?? "png", quality, maxSize });
      return { data: toDataUri(image), format: image.format, width: image.width, height: image.height };
    },
  };

  const flush = (): void => {
    const all = [...changes.values()];
    changes.clear();
    for (const { doc, changes: what } of all) if (store.list().includes(doc)) events.notifyChanged(doc, what);
  };

  return {
    call(op, args) {
      const run = sync[op];
      if (!run) throw new BridgeError("NOT_SUPPORTED", `The editor API has no operation ${op}`, { details: { op } });
      return run(args, op);
    },
    async callAsync(op, args) {
      const run = asynchronous[op];
      if (!run) throw new BridgeError("NOT_SUPPORTED", `The editor API has no operation ${op}`, { details: { op } });
      // Pending change events first: a saved or exported file must not be newer than what subscribers saw.
      flush();
      return run(args, op);
    },
    flush,
  };
}
