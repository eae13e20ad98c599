/**
 * The host side of the script editor API: named operations the guest prelude calls with JSON arguments. Every
 * argument is validated here (the guest is untrusted); failures are `BridgeError`s the guest can catch. Edits
 * are reported once per document when the run ends ({@link ScriptApi.flush}), so a script filling in a loop
 * emits one `documentChanged` and one debounced preview, not thousands.
 */
import { z } from "zod";
import { BridgeError } from "../../../protocol/errors.js";
import type { HostCallContext } from "../../host.js";
import type { EmbeddedDocument, EmbeddedLayer } from "../document.js";
import { newDocumentContent } from "../document.js";
import type { DocumentChanges, } from "../events.js";
import { PSD_BLEND_MODES } from "../psd.js";
import { selectShape, selectionMask, setSelectionMask } from "../selection.js";
import { flattenLayers, requireLayer, toHostDocument, toHostLayer } from "../tree.js";
import type { LayerEntry } from "../tree.js";
import { checkpoint } from "../work.js";
import { ColorArg, DocArgs, LayerArgs, RectArg, coordinate, docId, layerId, parse, toRgba } from "./args.js";
import { addLayer, duplicateLayer, fillLayer, flattenDocument, moveLayer, pixelLayer, removeLayer, translateLayer } from "./edits.js";
import { hostCalls } from "./host-calls.js";
import { SCRIPT_MAX_PROGRESS_MESSAGE_CHARS } from "./limits.js";

import type { ScriptEnv } from "./env.js";

/*
 * The operations' argument schemas, made once: a schema made per call was built, and compiled by zod on its first
 * parse, at every host call of every script.
 */

/** Arguments of `script.progress`. */
const ScriptProgressArgs = z
  .object({ progress: z.number().min(0).max(1), message: z.string().max(SCRIPT_MAX_PROGRESS_MESSAGE_CHARS).optional() })
  .strict();
/** Arguments of `app.createDocument`. */
const AppCreateDocumentArgs = z
  .object({
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    name: z.string().min(1).max(255).optional(),
    background: ColorArg.optional(),
  })
  .strict();
/** Arguments of `doc.layers`. */
const DocLayersArgs = z.object({ doc: docId, parent: layerId.optional(), flat: z.boolean().optional() }).strict();
/** Arguments of `doc.addLayer`. */
const DocAddLayerArgs = z.object({ doc: docId, kind: z.enum(["pixel", "group"]), name: z.string().min(1).max(255).optional() }).strict();
/** Arguments of `selection.set`. */
const SelectionSetArgs = z
  .object({
    doc: docId,
    rect: RectArg.nullable().optional(),
    ellipse: RectArg.optional(),
    polygon: z.array(z.tuple([z.number(), z.number()])).min(3).optional(),
  })
  .strict();
/** Arguments of `layer.set`. */
const LayerSetArgs = z
  .object({
    doc: docId,
    layer: layerId,
    name: z.string().min(1).max(255).optional(),
    visible: z.boolean().optional(),
    opacity: z.number().min(0).max(100).optional(),
    blendMode: z.string().max(32).optional(),
  })
  .strict();
/** Arguments of `layer.translate`. */
const LayerTranslateArgs = z.object({ doc: docId, layer: layerId, dx: coordinate, dy: coordinate }).strict();
/** Arguments of `layer.duplicate`. */
const LayerDuplicateArgs = z.object({ doc: docId, layer: layerId, name: z.string().min(1).max(255).optional() }).strict();
/** Arguments of `layer.move`. */
const LayerMoveArgs = z.union([
  z.object({ doc: docId, layer: layerId, above: layerId }).strict(),
  z.object({ doc: docId, layer: layerId, below: layerId }).strict(),
  z.object({ doc: docId, layer: layerId, parent: layerId }).strict(),
  z.object({ doc: docId, layer: layerId, to: z.enum(["top", "bottom"]) }).strict(),
]);
/** Arguments of `layer.fill`. */
const LayerFillArgs = z.object({ doc: docId, layer: layerId, color: ColorArg, clear: z.boolean().optional() }).strict();

export interface ScriptApi {
  call(op: string, args: unknown): unknown;
  callAsync(op: string, args: unknown): Promise<unknown>;
  /** Emits the accumulated change events (also after a failed run: its edits happened). */
  flush(): void;
}

/**
 * One script run's API over the editor. `ctx` is the run's call context (its abort signal, checkpoint, progress). It is one long table
 * on purpose: every synchronous operation closes over the run's change set, and each entry is a few lines; the
 * asynchronous ones are in `host-calls.ts`.
 */
export function createScriptApi(env: ScriptEnv, ctx: HostCallContext): ScriptApi {
  const { store, events } = env;
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
  const entryOf = (doc: EmbeddedDocument, id: number): LayerEntry => requireLayer(doc, id);
  const layerSummary = (layer: EmbeddedLayer): { id: number; kind: string } => ({ id: layer.id, kind: layer.kind });
  const activate = (doc: EmbeddedDocument): void => {
    if (store.active() === doc) return;
    store.activate(doc.id);
    events.activeDocumentChanged();
  };

  // Mask loops of a selection stop when the run is cancelled; the guest sees the abort reason, then is interrupted.
  const check = (): void => checkpoint(ctx);

  const sync: Record<string, (args: unknown, op: string) => unknown> = {
    "script.progress": (args, op) => {
      const { progress, message } = parse(ScriptProgressArgs, op, args);
      ctx.progress?.(progress, 1, message);
      return null;
    },
    "app.documents": () => store.list().map((doc) => doc.id),
    "app.activeDocument": () => store.active()?.id ?? null,
    "app.setActiveDocument": (args, op) => {
      activate(store.get(parse(DocArgs, op, args).doc));
      return null;
    },
    "app.createDocument": (args, op) => {
      const { width, height, name, background } = parse(AppCreateDocumentArgs, op, args);
      if (width * height > env.maxDocumentPixels) {
        throw new BridgeError("PAYLOAD_TOO_LARGE", `Document of ${width}×${height} exceeds ${env.maxDocumentPixels} pixels`, {
          details: { width, height, maxPixels: env.maxDocumentPixels },
        });
      }
      const color = toRgba(background ?? "white");
      env.memory.check(`Creating a document of ${width}×${height}`, color[3] === 0 ? 0 : width * height * 4, { width, height });
      const doc = store.add(newDocumentContent(width, height, color), { name: name ?? store.untitledName() });
      events.activeDocumentChanged();
      return doc.id;
    },
    "doc.info": (args, op) => toHostDocument(store.get(parse(DocArgs, op, args).doc)),
    "doc.layers": (args, op) => {
      const { doc: id, parent, flat } = parse(DocLayersArgs, op, args);
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
      const { doc: id, kind, name } = parse(DocAddLayerArgs, op, args);
      const doc = store.get(id);
      const layer = addLayer(doc, kind, name);
      changed(doc, { layers: true, activeLayers: true });
      return layerSummary(layer);
    },
    "doc.flatten": (args, op) => {
      const doc = store.get(parse(DocArgs, op, args).doc);
      // The composite and the new background, both of the canvas, exist before the old layers are let go.
      env.memory.check(`Flattening a document of ${doc.width}×${doc.height}`, 2 * doc.width * doc.height * 4, { documentId: doc.id });
      const layer = flattenDocument(doc, check);
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
      const { doc: id, rect, ellipse, polygon } = parse(SelectionSetArgs, op, args);
      const doc = store.get(id);
      if (polygon !== undefined) selectShape(doc, { kind: "polygon", points: polygon.map(([x, y]) => ({ x, y })) }, check);
      else if (ellipse !== undefined) selectShape(doc, { kind: "ellipse", rect: ellipse }, check);
      else if (rect) selectShape(doc, { kind: "rect", rect }, check);
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
      const { doc: id, layer, name, visible, opacity, blendMode } = parse(LayerSetArgs, op, args);
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
      const { doc: id, layer, dx, dy } = parse(LayerTranslateArgs, op, args);
      const doc = store.get(id);
      translateLayer(entryOf(doc, layer).layer, dx, dy);
      changed(doc, { pixels: true });
      return null;
    },
    "layer.duplicate": (args, op) => {
      const { doc: id, layer, name } = parse(LayerDuplicateArgs, op, args);
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
    "layer.move": (args, op) => {
      const { doc: id, layer, ...place } = parse(LayerMoveArgs, op, args);
      const doc = store.get(id);
      moveLayer(doc, entryOf(doc, layer), place);
      changed(doc, { layers: true, pixels: true });
      return null;
    },
    "layer.fill": (args, op) => {
      const { doc: id, layer, color, clear } = parse(LayerFillArgs, op, args);
      const doc = store.get(id);
      const target = pixelLayer(entryOf(doc, layer), op);
      fillLayer(doc, target, clear ? [0, 0, 0, 0] : toRgba(color), selectionMask(doc), {
        erase: clear === true,
        work: { rows: check },
        maxPixels: env.maxDocumentPixels,
        memory: env.memory,
      });
      changed(doc, { pixels: true });
      return null;
    },
  };

  // The editor operations a script awaits report no progress of their own: the script's `progress` is the run's.
  const asynchronous = hostCalls(env, { ...ctx, progress: undefined });
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
