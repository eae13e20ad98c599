/*
 * `applyAdjustment`: an adjustment layer's record (ag-psd's `AdjustmentLayer`) applied to the pixels below it.
 * The result is the adjusted picture only; the compositor blends it over the backdrop with the layer's mask,
 * opacity and blend mode, as Photoshop does.
 */
import type { AdjustmentLayer } from "ag-psd";
import { BridgeError } from "../../../protocol/errors.js";
import type { Raster } from "../raster.js";
import type { RowWork } from "../work.js";
import { brightnessContrastProgram } from "./brightness-contrast.js";
import { colorBalanceProgram } from "./color-balance.js";
import { gradientMapProgram } from "./gradient-map.js";
import { hueSaturationProgram } from "./hue-saturation.js";
import { blackAndWhiteProgram, channelMixerProgram } from "./mixers.js";
import { photoFilterProgram } from "./photo-filter.js";
import { type ColorProgram, identityTable, sameTables } from "./program.js";
import { runProgram, runProgramInPlace } from "./run.js";
import { selectiveColorProgram } from "./selective-color.js";
import { curvesProgram, exposureProgram, invertProgram, levelsProgram, posterizeProgram, thresholdProgram } from "./tone.js";
import { vibranceProgram } from "./vibrance.js";

/** Options of {@link applyAdjustment}. */
export interface AdjustmentOptions {
  /**
   * The document is grayscale (its pixels carry the grey level in all three channels): levels and curves use only
   * their composite channel, and colour adjustments map the grey level through their effect on a neutral grey.
   * @default false
   */
  readonly grayscale?: boolean;
  /** Told every `ROW_BAND` rows; may throw to stop (a cancelled call). */
  readonly work?: RowWork;
}

/**
 * The adjustment types {@link applyAdjustment} renders: every one ag-psd reads; `color lookup` only when it holds
 * no table yet (a fresh Color Lookup layer, which changes nothing).
 */
export const RENDERED_ADJUSTMENTS: readonly AdjustmentLayer["type"][] = [
  "brightness/contrast",
  "levels",
  "curves",
  "exposure",
  "vibrance",
  "hue/saturation",
  "color balance",
  "black & white",
  "photo filter",
  "channel mixer",
  "invert",
  "posterize",
  "threshold",
  "gradient map",
  "selective color",
  "color lookup",
];

/**
 * Why an adjustment cannot be rendered, or undefined when it can: a `color lookup` holding a table (3D LUT and
 * profile files are not interpreted) and noise gradient maps (Photoshop's noise generator is not public).
 */
export function unrenderedAdjustmentReason(adjustment: AdjustmentLayer): string | undefined {
  if (adjustment.type === "color lookup" && (adjustment.lut3DFileData !== undefined || adjustment.profile !== undefined)) {
    return "color lookup tables are not interpreted";
  }
  if (adjustment.type === "gradient map" && adjustment.gradientType === "noise") return "noise gradients are not rendered";
  if (!RENDERED_ADJUSTMENTS.includes(adjustment.type)) return `unknown adjustment type ${String(adjustment.type)}`;
  return undefined;
}

/**
 * A new raster of `pixels` (straight RGBA) with the adjustment applied to the colour; alpha is copied untouched.
 *
 * @throws BridgeError `NOT_SUPPORTED` (`details: { adjustment, reason }`) for what
 * {@link unrenderedAdjustmentReason} names; a `work` report may throw (cancellation).
 * @example
 * const adjusted = applyAdjustment(layer.adjustment, backdrop);
 * blendOnto(backdrop, adjusted, { dx: 0, dy: 0, opacity: layer.opacity, blendMode: layer.blendMode, placed: mask });
 */
export function applyAdjustment(adjustment: AdjustmentLayer, pixels: Raster, options: AdjustmentOptions = {}): Raster {
  return runProgram(compileAdjustment(adjustment, options.grayscale ?? false), pixels, options.work);
}

/**
 * `pixels` with the adjustment applied to their colour where they are, pixels without alpha left as they are: an
 * adjustment layer at full strength (normal blend, full opacity, no mask), with no copy to draw back.
 * @throws as {@link applyAdjustment}.
 */
export function applyAdjustmentInPlace(adjustment: AdjustmentLayer, pixels: Raster, options: AdjustmentOptions = {}): void {
  runProgramInPlace(compileAdjustment(adjustment, options.grayscale ?? false), pixels, options.work);
}

/** The adjustment as a {@link ColorProgram} (tables or a colour function). */
export function compileAdjustment(adjustment: AdjustmentLayer, grayscale: boolean): ColorProgram {
  const reason = unrenderedAdjustmentReason(adjustment);
  if (reason !== undefined) {
    throw new BridgeError("NOT_SUPPORTED", `The ${String(adjustment.type)} adjustment cannot be rendered: ${reason}`, {
      details: { adjustment: adjustment.type, reason },
    });
  }
  const program = compileRendered(adjustment, grayscale);
  return grayscale && program.kind === "color" ? greyed(program) : program;
}

function compileRendered(adjustment: AdjustmentLayer, grayscale: boolean): ColorProgram {
  switch (adjustment.type) {
    case "brightness/contrast":
      return brightnessContrastProgram(adjustment);
    case "levels":
      return levelsProgram(adjustment, grayscale);
    case "curves":
      return curvesProgram(adjustment, grayscale);
    case "exposure":
      return exposureProgram(adjustment, grayscale);
    case "invert":
      return invertProgram();
    case "posterize":
      return posterizeProgram(adjustment.levels);
    case "threshold":
      return thresholdProgram(adjustment.level);
    case "hue/saturation":
      return hueSaturationProgram(adjustment);
    case "color balance":
      return colorBalanceProgram(adjustment);
    case "vibrance":
      return vibranceProgram(adjustment);
    case "black & white":
      return blackAndWhiteProgram(adjustment);
    case "channel mixer":
      return channelMixerProgram(adjustment);
    case "photo filter":
      return photoFilterProgram(adjustment);
    case "gradient map":
      return gradientMapProgram(adjustment);
    case "selective color":
      return selectiveColorProgram(adjustment);
    case "color lookup":
      return sameTables(identityTable());
    default: {
      // Unreachable for ag-psd's types; a record from elsewhere may still name something else.
      const type = String((adjustment as { type?: unknown }).type);
      throw new BridgeError("NOT_SUPPORTED", `The ${type} adjustment cannot be rendered`, { details: { adjustment: type } });
    }
  }
}

/** A colour function on a grayscale document: the grey level goes through it, and its result's luma is the new grey. */
function greyed(program: Extract<ColorProgram, { kind: "color" }>): ColorProgram {
  const out = new Float64Array(3);
  const table = new Uint8Array(256);
  for (let v = 0; v < 256; v++) {
    program.fn(v, v, v, out);
    const grey = 0.299 * (out[0] ?? 0) + 0.587 * (out[1] ?? 0) + 0.114 * (out[2] ?? 0);
    table[v] = Math.round(Math.min(255, Math.max(0, grey)));
  }
  return { kind: "tables", tables: [table, table, table] };
}
