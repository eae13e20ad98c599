/**
 * Adjustment and fill layers in `layer:create` and `layer:update`: the editor's capability checked before anything
 * is read (`NOT_SUPPORTED` `{editor, capability: "adjustment layers" | "fill layers"}`), the settings resolved with
 * their defaults, and the layer's kind checked against what an update passes.
 */
import type { ResolvedFill } from "../../protocol/fills.js";
import type { ResolvedAdjustment } from "../../protocol/adjustments.js";
import { type AdjustmentInput, BridgeError, type FillInput, type HostLayer } from "../../protocol/index.js";
import { parseColor } from "../../hosts/_internal/color.js";
import { probeImage } from "../../imports/index.js";
import type { MethodContext } from "../define.js";
import { importSource } from "../layer.js";
import { resolveAdjustment } from "./adjustments.js";

const CAPABILITY = { adjustment: "adjustment layers", fill: "fill layers" } as const;

/** A gradient fill's defaults (Photoshop's Gradient Fill dialog). */
export const FILL_GRADIENT_DEFAULTS = { style: "linear", angle: 90, scale: 100, reverse: false, align: true } as const;

function notSupported(ctx: MethodContext, kind: "adjustment" | "fill", method: string, more: Record<string, unknown> = {}): BridgeError {
  const capability = CAPABILITY[kind];
  return new BridgeError("NOT_SUPPORTED", `The ${ctx.host.kind} editor cannot make ${capability}`, {
    details: { editor: ctx.host.kind, capability, method, ...more },
  });
}

/** The name a pattern fill's tile takes in the document when the call gives none. */
export const DEFAULT_PATTERN_NAME = "Pattern";

/**
 * A fill with its defaults; a pattern's image read (as `layer:importImage` reads one) and checked against the import
 * limits. @throws BridgeError `BAD_REQUEST` naming a colour it cannot read, an image that cannot be read.
 */
export async function resolveFill(ctx: MethodContext, fill: FillInput): Promise<ResolvedFill> {
  switch (fill.type) {
    case "solid":
      return { type: "solid", color: parseColor(fill.color, "fill.color") };
    case "gradient":
      return {
        type: "gradient",
        style: fill.style ?? FILL_GRADIENT_DEFAULTS.style,
        stops: fill.stops
          .map((stop, i) => ({ location: stop.location, color: parseColor(stop.color, `fill.stops.${i}.color`), midpoint: stop.midpoint ?? 50 }))
          .sort((a, b) => a.location - b.location),
        smoothness: fill.smoothness ?? 100,
        interpolation: fill.interpolation ?? "classic",
        angle: fill.angle ?? FILL_GRADIENT_DEFAULTS.angle,
        scale: fill.scale ?? FILL_GRADIENT_DEFAULTS.scale,
        reverse: fill.reverse ?? FILL_GRADIENT_DEFAULTS.reverse,
        align: fill.align ?? FILL_GRADIENT_DEFAULTS.align,
        offset: fill.offset ?? { x: 0, y: 0 },
      };
    case "pattern": {
      const image = await probeImage(await importSource(ctx, fill.image), ctx.bridge.imports.limits.maxPixels, undefined);
      return { type: "pattern", name: fill.name ?? DEFAULT_PATTERN_NAME, image: { bytes: image.bytes, format: image.format, width: image.width, height: image.height } };
    }
  }
}

/**
 * `layer:create`'s adjustment or fill, resolved; nothing for other kinds. Checked before the document is read.
 * @throws BridgeError `NOT_SUPPORTED` when the editor cannot make the kind (its `layer:create` `unsupportedTypes`).
 */
export async function contentOfNewLayer(
  ctx: MethodContext,
  params: { kind?: string | undefined; adjustment?: AdjustmentInput | undefined; fill?: FillInput | undefined; fillColor?: string | undefined },
): Promise<{ adjustment?: ResolvedAdjustment; fill?: ResolvedFill }> {
  const kind = params.kind;
  if (kind !== "adjustment" && kind !== "fill") return {};
  if (ctx.host.editCapabilities?.["layer:create"]?.unsupportedTypes?.includes(kind) === true) throw notSupported(ctx, kind, "layer:create");
  if (params.fillColor !== undefined) {
    throw new BridgeError("BAD_REQUEST", `An ${kind} layer has no pixels to fill: leave out fillColor`, { details: { kind, fillColor: params.fillColor } });
  }
  if (kind === "adjustment") return { adjustment: resolveAdjustment(params.adjustment!) };
  return { fill: await resolveFill(ctx, params.fill!) };
}

/** `layer:update`'s `adjustment` or `fill` checked against the editor, before the document is read. */
export function checkContentUpdate(ctx: MethodContext, params: { adjustment?: AdjustmentInput | undefined; fill?: FillInput | undefined }): void {
  const unsupported = ctx.host.editCapabilities?.["layer:update"]?.unsupported ?? [];
  for (const kind of ["adjustment", "fill"] as const) {
    if (params[kind] !== undefined && unsupported.includes(kind)) throw notSupported(ctx, kind, "layer:update");
  }
}

/**
 * `layer:update`'s `adjustment` or `fill` for `layer`, resolved. @throws BridgeError `BAD_REQUEST` when the layer is
 * not of that kind (a fill goes on a fill or shape layer).
 */
export async function contentUpdate(
  ctx: MethodContext,
  layer: HostLayer,
  params: { adjustment?: AdjustmentInput | undefined; fill?: FillInput | undefined },
): Promise<{ adjustment?: ResolvedAdjustment; fill?: ResolvedFill }> {
  const out: { adjustment?: ResolvedAdjustment; fill?: ResolvedFill } = {};
  if (params.adjustment !== undefined) {
    if (layer.kind !== "adjustment") {
      throw new BridgeError("BAD_REQUEST", `Layer ${layer.id} is a ${layer.kind} layer, not an adjustment layer`, { details: { layerId: layer.id, kind: layer.kind, field: "adjustment" } });
    }
    out.adjustment = resolveAdjustment(params.adjustment);
  }
  if (params.fill !== undefined) {
    if (layer.kind !== "fill" && layer.kind !== "shape") {
      throw new BridgeError("BAD_REQUEST", `Layer ${layer.id} is a ${layer.kind} layer, not a fill layer`, { details: { layerId: layer.id, kind: layer.kind, field: "fill" } });
    }
    out.fill = await resolveFill(ctx, params.fill);
  }
  return out;
}

/** Photoshop's names of new adjustment and fill layers (numbered after them: `Curves 1`). */
const ADJUSTMENT_LAYER_NAMES: Readonly<Record<AdjustmentInput["type"], string>> = {
  brightnessContrast: "Brightness/Contrast",
  levels: "Levels",
  curves: "Curves",
  exposure: "Exposure",
  hueSaturation: "Hue/Saturation",
  vibrance: "Vibrance",
  colorBalance: "Color Balance",
  blackAndWhite: "Black & White",
  photoFilter: "Photo Filter",
  channelMixer: "Channel Mixer",
  invert: "Invert",
  posterize: "Posterize",
  threshold: "Threshold",
  gradientMap: "Gradient Map",
  selectiveColor: "Selective Color",
};
const FILL_LAYER_NAMES: Readonly<Record<FillInput["type"], string>> = { solid: "Color Fill", gradient: "Gradient Fill", pattern: "Pattern Fill" };

/** What a new layer is named after when no name is given: `Layer`, `Group`, or Photoshop's name of the adjustment or fill. */
export function newLayerStem(params: { kind?: string | undefined; adjustment?: AdjustmentInput | undefined; fill?: FillInput | undefined }): string {
  if (params.adjustment !== undefined) return ADJUSTMENT_LAYER_NAMES[params.adjustment.type];
  if (params.fill !== undefined) return FILL_LAYER_NAMES[params.fill.type];
  return params.kind === "group" ? "Group" : "Layer";
}
