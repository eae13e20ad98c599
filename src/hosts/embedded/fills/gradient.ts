/*
 * Gradient fills: where each document pixel falls along the gradient (0 at the first stop, 1 at the last), for
 * the five styles, then the colour from the ramp.
 *
 * Geometry (fitted on Photoshop's own renderings): the gradient is laid over a reference box, the layer's
 * bounds when "align with layer" is on (the default) and the canvas otherwise, centred on the box's centre moved
 * by the offset (a fraction of the box). Its length is that of the line through the centre along the angle
 * inside the box (`min(w / |cos θ|, h / |sin θ|)`), times the scale; linear runs along it, reflected from the
 * centre out over half of it, radial and diamond (the sum of the distances along and across the angle) reach
 * the last stop at half of it, and angle turns clockwise from the angle's direction.
 *
 * Photoshop then places the gradient as its gradient tool would be dragged, between whole pixels, and samples
 * each pixel at its top-left corner; so does this. A linear gradient runs between its two ends, each rounded down
 * on its own. The other styles are dragged from their centre: the centre is rounded down, and so is the end half
 * a gradient away, which sets both the direction and the length (on a 4×4 canvas a 30° reflected gradient
 * becomes a 45° one, as in Photoshop's own rendering). Fitted on Photoshop's renderings of every style at three
 * angles and two scales: within dithering (≤ 0.5 level RMS) but for a diamond at 60° and a linear gradient at
 * half scale, 5 levels off. Dithering is not applied.
 */
import type { EffectSolidGradient, ExtraGradientInfo } from "ag-psd";
import type { HostBounds } from "../../../protocol/index.js";
import { buildRamp, RAMP_SIZE } from "../_internal/gradient-ramp.js";
import { emptyRaster, type Raster } from "../raster.js";
import { RowBands, type RowWork } from "../work.js";

/** Offset of the ramp's last entry. */
const LAST = (RAMP_SIZE - 1) * 4;

/** A solid gradient with its placement, as ag-psd reads a gradient fill layer. */
export type GradientContent = EffectSolidGradient & ExtraGradientInfo;

/**
 * Renders `content` over `region` of the document; `box` is the reference box (see the file comment). With
 * `linear`, the stops are linear light (a 32-bit document's) and blend as such.
 */
export function renderGradient(content: GradientContent, region: HostBounds, box: HostBounds, work?: RowWork, linear = false): Raster {
  const width = region.right - region.left;
  const height = region.bottom - region.top;
  const out = emptyRaster(width, height);
  const ramp = buildRamp(content, { scale: "descriptor", reverse: content.reverse, method: content.interpolationMethod, linearStops: linear });
  const position = gradientPosition(content, box);
  const d = out.data;
  const bands = new RowBands(work);
  for (let y = 0; y < height; y++) {
    bands.next();
    const py = region.top + y;
    let o = y * width * 4;
    for (let x = 0; x < width; x++, o += 4) {
      const t = position(region.left + x, py);
      const i = t <= 0 ? 0 : t >= 1 ? LAST : ((t * (RAMP_SIZE - 1) + 0.5) | 0) * 4;
      d[o] = ramp[i] as number;
      d[o + 1] = ramp[i + 1] as number;
      d[o + 2] = ramp[i + 2] as number;
      d[o + 3] = ramp[i + 3] as number;
    }
  }
  bands.end(height);
  return out;
}

/**
 * How far below a whole pixel a computed end may fall and still count as on it: the ends are sums of sines and
 * cosines, and an end meant to sit on a pixel (a 30° gradient across a 4-pixel box ends at x = 4) may compute as
 * 3.9999999999999996.
 */
const SNAP_TOLERANCE = 1e-6;

/** A coordinate rounded down to a whole pixel, within {@link SNAP_TOLERANCE}. */
function snap(v: number): number {
  return Math.floor(v + SNAP_TOLERANCE);
}

/** The position (0–1, unclamped) along the gradient of a document point. */
export function gradientPosition(content: ExtraGradientInfo, box: HostBounds): (x: number, y: number) => number {
  const angle = ((Number.isFinite(content.angle) ? (content.angle ?? 90) : 90) * Math.PI) / 180;
  const scale = Number.isFinite(content.scale) && (content.scale ?? 1) > 0 ? (content.scale ?? 1) : 1;
  const w = box.right - box.left;
  const h = box.bottom - box.top;
  const cx0 = (box.left + box.right) / 2 + (Number.isFinite(content.offset?.x) ? (content.offset?.x ?? 0) : 0) * w;
  const cy0 = (box.top + box.bottom) / 2 + (Number.isFinite(content.offset?.y) ? (content.offset?.y ?? 0) : 0) * h;
  // Direction of the angle, y pointing down (Photoshop's angles turn counter-clockwise on screen).
  const dx = Math.cos(angle);
  const dy = -Math.sin(angle);
  // The line through the centre along the angle, from where it enters the box to where it leaves it.
  const span = Math.min(Math.abs(dx) > 1e-9 ? w / Math.abs(dx) : Infinity, Math.abs(dy) > 1e-9 ? h / Math.abs(dy) : Infinity);
  const reach = ((Number.isFinite(span) ? span : Math.max(w, h)) * scale) / 2;
  const style = content.style ?? "linear";
  // Where the gradient is dragged from and to, in whole pixels (see the file comment).
  const fromCentre = style !== "linear";
  const [sx, sy] = fromCentre ? [snap(cx0), snap(cy0)] : [snap(cx0 - reach * dx), snap(cy0 - reach * dy)];
  const [ex, ey] = [snap(cx0 + reach * dx), snap(cy0 + reach * dy)];
  const cx = fromCentre ? sx : (sx + ex) / 2;
  const cy = fromCentre ? sy : (sy + ey) / 2;
  const rx = fromCentre ? ex - sx : (ex - sx) / 2;
  const ry = fromCentre ? ey - sy : (ey - sy) / 2;
  // A gradient shorter than a pixel keeps its exact ends rather than collapsing to a point.
  const [hx, hy] = rx === 0 && ry === 0 ? [reach * dx, reach * dy] : [rx, ry];
  const half = Math.max(1e-9, Math.hypot(hx, hy));
  const ux = hx / half;
  const uy = hy / half;
  const length = 2 * half;
  const turnFrom = Math.atan2(-uy, ux);
  switch (style) {
    case "radial":
      // Math.sqrt rather than Math.hypot: hypot's overflow care costs several times more per pixel.
      return (x, y) => Math.sqrt((x - cx) * (x - cx) + (y - cy) * (y - cy)) / half;
    case "reflected":
      return (x, y) => Math.abs((x - cx) * ux + (y - cy) * uy) / half;
    case "diamond":
      return (x, y) => {
        const along = (x - cx) * ux + (y - cy) * uy;
        const across = -(x - cx) * uy + (y - cy) * ux;
        return (Math.abs(along) + Math.abs(across)) / half;
      };
    case "angle":
      return (x, y) => {
        // Turn from the angle's direction, clockwise on screen, as a fraction of a full turn.
        const turn = (Math.atan2(-(y - cy), x - cx) - turnFrom) / (2 * Math.PI);
        return 1 - (((turn % 1) + 1) % 1);
      };
    default:
      return (x, y) => ((x - cx) * ux + (y - cy) * uy) / length + 0.5;
  }
}
