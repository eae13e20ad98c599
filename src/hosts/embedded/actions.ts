// One rxjs module, not its index (see events.ts).
import type { Observable } from "rxjs/internal/Observable";
import { Subject } from "rxjs/internal/Subject";
import { BridgeError } from "../../protocol/errors.js";
import type { Logger } from "../../logger.js";
import type { CutoutMethod } from "../../protocol/index.js";
import type { CutoutOutcome, HostAdapter, HostCallContext } from "../host.js";
import { renderLayer } from "./composite.js";
import { cutoutSubject, DEFAULT_CUTOUT_OPTIONS, MODEL_SESSION_BYTES, type CutoutReport, type EmbeddedCutoutOptions } from "./cutout/index.js";
import type { EmbeddedDocument, PixelLayer } from "./document.js";
import type { DocumentChanges } from "./events.js";
import { CUTOUT_WORK_BYTES } from "./limits.js";
import type { EditorMemory } from "./memory.js";
import type { Raster } from "./raster.js";
import { setSelectionMask } from "./selection.js";
import { layerBounds, requireLayer } from "./tree.js";
import { boundsToRect } from "./raster.js";
import { rgbaBytes } from "./memory.js";

/** What the actions need from the editor. */
export interface ActionOpsDeps {
  /** The editor's memory budget: a cutout is charged its buffers, and the model its session before it loads. */
  readonly memory: EditorMemory;
  document(documentId: number | undefined): EmbeddedDocument;
  /** Reports an edit (events, dirty flag). */
  changed(doc: EmbeddedDocument, changes: DocumentChanges): void;
  /** Throws the abort reason once the call is cancelled or out of time (see `work.ts`). */
  checkpoint(ctx: HostCallContext): void;
  readonly options?: Partial<EmbeddedCutoutOptions> | undefined;
  readonly logger?: Logger | undefined;
}

/** Outcome fields of a cutout that found nothing to segment. */
const EMPTY_LAYER = { success: false, confidence: 0, coverage: 0, refined: false, reason: "layer is empty", method: "flood" } as const;

/**
 * The embedded editor's `autoCutout` and `removeBackground` over the segmentation of `cutout/`, and the stream of
 * {@link CutoutReport}s (the `cutoutFinished` event).
 */
export function actionOps(deps: ActionOpsDeps): Required<Pick<HostAdapter, "autoCutout">> & {
  removeBackground(ctx: HostCallContext, options: { documentId: number; layerId: number; method?: CutoutMethod | undefined }): Promise<CutoutOutcome>;
  reports$: Observable<CutoutReport>;
} {
  const options: EmbeddedCutoutOptions = { ...DEFAULT_CUTOUT_OPTIONS, ...deps.options };
  const reports = new Subject<CutoutReport>();

  /**
   * Segments `raster` holding its buffers in the budget: the work copies (bounded by the work size) and the
   * full-size mask and its scaled copy, one byte per pixel each.
   */
  async function segment(ctx: HostCallContext, raster: Raster, method: CutoutMethod | undefined): Promise<Awaited<ReturnType<typeof cutoutSubject>>> {
    const { width, height } = raster;
    const held = deps.memory.reserve(`Cutting out a layer of ${width}×${height}`, CUTOUT_WORK_BYTES + 2 * width * height, { width, height });
    try {
      // Between stages and GrabCut iterations; progress is the cutout's own stages (`CUTOUT_PROGRESS_UNITS`).
      return await cutoutSubject(raster, {
        ...options,
        method,
        checkpoint: () => deps.checkpoint(ctx),
        progress: ctx.progress ? (done, total, message) => ctx.progress?.(done, total, message) : undefined,
        reserveModel: () => deps.memory.check("Loading the segmentation model", MODEL_SESSION_BYTES),
      });
    } finally {
      held.release();
    }
  }

  function report(data: CutoutReport): boolean {
    deps.logger?.info({ actor: "host", cutout: data }, `${data.action} by ${data.method}, confidence ${data.confidence}`);
    reports.next(data);
    return data.success;
  }

  /**
   * Whether to apply a cutout: the model's whenever it found a subject (an empty or full mask is its only failure),
   * flood fill's above `minConfidence`.
   */
  const accepted = (result: Awaited<ReturnType<typeof cutoutSubject>>): boolean =>
    result.method === "model" ? result.reason === undefined : result.confidence >= options.minConfidence;

  return {
    reports$: reports.asObservable(),

    async autoCutout(ctx, { documentId, layerId, method }) {
      const doc = deps.document(documentId);
      // The layer's own pixels (a group: its composite), where they sit in the document.
      deps.checkpoint(ctx);
      const target = requireLayer(doc, layerId).layer;
      // A group is composited into a buffer of its bounds, held while it is segmented; a pixel layer is used as it is.
      const rect = boundsToRect(layerBounds(target));
      const composite = target.kind === "group" ? deps.memory.reserve(`Compositing group "${target.name}"`, rgbaBytes(rect.width, rect.height), { layerId }) : undefined;
      const base = { documentId: doc.id, layerId, action: "autoCutout" as const };
      let result: Awaited<ReturnType<typeof segment>>;
      let rendered: ReturnType<typeof renderLayer>;
      try {
        rendered = renderLayer(target, { rows: () => deps.checkpoint(ctx) });
        if (!rendered) return report({ ...base, ...EMPTY_LAYER });
        result = await segment(ctx, rendered.raster, method);
      } finally {
        composite?.release();
      }
      deps.document(doc.id); // closed meanwhile → DOCUMENT_NOT_FOUND
      let success = accepted(result);
      if (success) {
        const { left, top } = rendered.bounds;
        success = setSelectionMask(doc, { x: left, y: top, width: result.width, height: result.height, data: result.alpha }) !== null;
        deps.changed(doc, { selection: true });
      }
      const { confidence, coverage, refined, reason } = result;
      return report({ ...base, success, confidence, coverage, refined, reason: reason ?? null, method: result.method });
    },

    async removeBackground(ctx, { documentId, layerId, method }) {
      const doc = deps.document(documentId);
      const entry = requireLayer(doc, layerId);
      const layer = entry.layer;
      if (layer.kind === "group") {
        // The methods refuse groups before calling; scripts reach this directly.
        throw new BridgeError("BAD_REQUEST", "Remove Background needs a pixel layer, not a group", { details: { layerId, kind: layer.kind } });
      }
      const base = { documentId: doc.id, layerId, action: "removeBackground" as const };
      if (layer.width === 0 || layer.height === 0) {
        report({ ...base, ...EMPTY_LAYER });
        return { success: false, method: EMPTY_LAYER.method, coverage: 0, reason: EMPTY_LAYER.reason };
      }
      deps.checkpoint(ctx);
      // The layer's own pixels, not any mask it has: the new mask replaces the old one.
      const result = await segment(ctx, layer, method);
      deps.document(doc.id);
      const success = accepted(result);
      if (success) {
        const mask = { x: layer.left, y: layer.top, width: layer.width, height: layer.height, data: result.alpha, defaultColor: 0 as const };
        if (layer.kind === "background") {
          // A background layer cannot carry a mask (as in Photoshop): it becomes a normal layer first.
          const converted: PixelLayer = { ...layer, kind: "pixel", mask };
          entry.siblings.splice(entry.siblings.indexOf(layer), 1, converted);
        } else {
          layer.mask = mask;
        }
        deps.changed(doc, { pixels: true, layers: true });
      }
      const { confidence, coverage, refined, reason } = result;
      report({ ...base, success, confidence, coverage, refined, reason: reason ?? null, method: result.method });
      return { success, method: result.method, coverage, ...(reason !== undefined ? { reason } : { reason: success ? undefined : "the subject is not clear enough" }) };
    },
  };
}
