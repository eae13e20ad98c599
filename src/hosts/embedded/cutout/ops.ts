import { Subject, type Observable } from "rxjs";
import { BridgeError } from "../../../protocol/index.js";
import type { HostBounds } from "../../../protocol/index.js";
import type { Logger } from "../../../logger.js";
import type { HostAdapter, HostCallContext } from "../../host.js";
import { renderDocument, renderLayer } from "../composite.js";
import type { EmbeddedDocument, PixelLayer } from "../document.js";
import { CUTOUT_MIN_CONFIDENCE, CUTOUT_WORK_EDGE } from "../limits.js";
import type { Raster } from "../raster.js";
import { setSelectionMask } from "../selection.js";
import { requireLayerRef } from "../tree.js";
import { type CutoutOptions, cutoutSubject } from "./segment.js";

/**
 * Host event with the outcome of every cutout. The spec's results are a bare boolean (`action:autoCutout`) and
 * `{success}` (`action:removeBackground`), so the confidence travels here and in the log.
 */
export const CUTOUT_EVENT = "cutoutFinished";

/** Data of {@link CUTOUT_EVENT}. */
export interface CutoutReport {
  readonly documentId: number;
  /** The layer segmented; `null` when `autoCutout` used the composite. */
  readonly layerId: number | null;
  readonly action: "autoCutout" | "removeBackground";
  /** Whether the selection or layer mask was changed. */
  readonly success: boolean;
  /** 0–1. Below `minConfidence` nothing changes. */
  readonly confidence: number;
  /** Share of the image found to be subject. */
  readonly coverage: number;
  /** Whether GrabCut refined the flood fill. */
  readonly refined: boolean;
  /** Why confidence is low, when it is. */
  readonly reason: string | null;
}

/** Cutout settings of the embedded editor. */
export interface EmbeddedCutoutOptions extends CutoutOptions {
  /** Below this confidence a cutout changes nothing and reports failure. @default CUTOUT_MIN_CONFIDENCE (0.35) */
  readonly minConfidence: number;
}

/** Defaults of {@link EmbeddedCutoutOptions}. */
export const DEFAULT_CUTOUT_OPTIONS: EmbeddedCutoutOptions = Object.freeze({
  workEdge: CUTOUT_WORK_EDGE,
  featherSigma: 1.2,
  // "always" lifts the bench's mean IoU from 0.973 to 0.986 for ~0.5 s more per cutout, but loads opencv.js
  // (~11 MB WASM, kept for the process lifetime); "auto" loads it only for unsure cutouts.
  refine: "auto",
  minConfidence: CUTOUT_MIN_CONFIDENCE,
});

/** What the cutout operations need from the adapter. */
export interface CutoutOpsDeps {
  document(documentId: number | undefined): EmbeddedDocument;
  changed(doc: EmbeddedDocument, changes: { pixels?: boolean; layers?: boolean; selection?: boolean }): void;
  checkAborted(ctx: HostCallContext): void;
  readonly options?: Partial<EmbeddedCutoutOptions> | undefined;
  readonly logger?: Logger | undefined;
}

/** The embedded editor's `autoCutout` and `removeBackground`, and the stream of {@link CutoutReport}s. */
export function cutoutOps(deps: CutoutOpsDeps): Required<Pick<HostAdapter, "autoCutout" | "removeBackground">> & {
  reports$: Observable<CutoutReport>;
} {
  const options: EmbeddedCutoutOptions = { ...DEFAULT_CUTOUT_OPTIONS, ...deps.options };
  const reports = new Subject<CutoutReport>();

  async function segment(ctx: HostCallContext, raster: Raster): Promise<Awaited<ReturnType<typeof cutoutSubject>>> {
    return cutoutSubject(raster, { ...options, checkpoint: () => deps.checkAborted(ctx) });
  }

  function report(data: CutoutReport): boolean {
    deps.logger?.info({ actor: "host", cutout: data }, `${data.action} confidence ${data.confidence}`);
    reports.next(data);
    return data.success;
  }

  return {
    reports$: reports.asObservable(),

    async autoCutout(ctx, { documentId, layerId }) {
      const doc = deps.document(documentId);
      let raster: Raster | null;
      let bounds: HostBounds;
      if (layerId !== undefined) {
        const rendered = renderLayer(requireLayerRef(doc, { by: "id", id: layerId }).layer);
        raster = rendered?.raster ?? null;
        bounds = rendered?.bounds ?? { left: 0, top: 0, right: 0, bottom: 0 };
      } else {
        raster = renderDocument(doc);
        bounds = { left: 0, top: 0, right: doc.width, bottom: doc.height };
      }
      const base = { documentId: doc.id, layerId: layerId ?? null, action: "autoCutout" as const };
      if (!raster) return report({ ...base, success: false, confidence: 0, coverage: 0, refined: false, reason: "layer is empty" });
      deps.checkAborted(ctx);
      const result = await segment(ctx, raster);
      deps.document(doc.id); // closed meanwhile → DOCUMENT_NOT_FOUND
      let success = result.confidence >= options.minConfidence;
      if (success) {
        const selected = setSelectionMask(doc, { x: bounds.left, y: bounds.top, width: result.width, height: result.height, data: result.alpha });
        success = selected !== null;
        deps.changed(doc, { selection: true });
      }
      const { confidence, coverage, refined, reason } = result;
      return report({ ...base, success, confidence, coverage, refined, reason: reason ?? null });
    },

    async removeBackground(ctx, { documentId, layerId }) {
      const doc = deps.document(documentId);
      const entry = requireLayerRef(doc, layerId !== undefined ? { by: "id", id: layerId } : { by: "active" });
      const layer = entry.layer;
      if (layer.kind === "group") {
        throw new BridgeError("BAD_REQUEST", "Remove Background needs a pixel layer, not a group", {
          details: { layerId: layer.id, kind: layer.kind },
        });
      }
      const base = { documentId: doc.id, layerId: layer.id, action: "removeBackground" as const };
      if (layer.width === 0 || layer.height === 0) {
        return { success: report({ ...base, success: false, confidence: 0, coverage: 0, refined: false, reason: "layer is empty" }) };
      }
      deps.checkAborted(ctx);
      // The layer's own pixels, not any mask it has: the new mask replaces the old one.
      const result = await segment(ctx, layer);
      deps.document(doc.id);
      const success = result.confidence >= options.minConfidence;
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
      return { success: report({ ...base, success, confidence, coverage, refined, reason: reason ?? null }) };
    },
  };
}
