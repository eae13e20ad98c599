/*
 * Gradient fills: where each document pixel falls along the gradient (0 at the first stop, 1 at the last), for
 * the five styles, then the colour from the ramp.
 *
 * Geometry (fitted on Photoshop's own renderings): the gradient is laid over a reference box, the layer's
 * bounds when "align with layer" is on (the default) and the canvas otherwise, centred on the box's centre moved
 * by the offset (a fraction of the box). Its length is that of the line through the centre along the angle
 * inside the box (`min(w / |cos θ|, h / |sin θ|)`), times the scale; linear runs along it, reflected from the
 * centre out over half of it, radial and diamond (the sum of the distances along and across the angle) reach
 * the last stop at half of it, and angle turns clockwise from the angle's direction. Photoshop rounds the
 * gradient's end points to whole pixels and samples each pixel at its top-left corner; so does this. Dithering
 * is not applied. On real files most styles land within 2–3 levels RMS; reflected and linear gradients at a
 * small scale are up to 10 off, and the angle style's seam (one pixel wide) differs.
 */
import type { EffectSolidGradient, ExtraGradientInfo } from "ag-psd";
import type { HostBounds } from "../../../protocol/index.js";
import { buildRamp, RAMP_SIZE } from "../_internal/gradient-ramp.js";
import { emptyRaster, type Raster } from "../raster.js";
import { ROW_BAND, type RowWork } from "../work.js";

/** Offset of the ramp's last entry. */
const LAST = (RAMP_SIZE - 1) * 4;

/** A solid gradient with its placement, as ag-psd reads a gradient fill layer. */
export type GradientContent = EffectSolidGradient & ExtraGradientInfo;

/** Renders `content` over `region` of the document; `box` is the reference box (see the file comment). */
export function renderGradient(content: GradientContent, region: HostBounds, box: HostBounds, work?: RowWork): Raster {
  const width = region.right - region.left;
  const height = region.bottom - region.top;
  const out = emptyRaster(width, height);
  const ramp = buildRamp(content, { scale: "descriptor", reverse: content.reverse, method: content.interpolationMethod });
  const position = gradientPosition(content, box);
  const d = out.data;
  let mark = 0;
  for (let y = 0; y < height; y++) {
    if (work !== undefined && y - mark === ROW_BAND) {
      work.rows(ROW_BAND);
      mark = y;
    }
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
  work?.rows(height - mark);
  return out;
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
  // Photoshop rounds the gradient's start and end down to whole pixels and keeps its centre: the half vector is
  // half the distance between the rounded ends (fitted on its renderings; unrounded is up to 4 levels further off).
  const cx = cx0;
  const cy = cy0;
  const rx = (Math.floor(cx0 + reach * dx) - Math.floor(cx0 - reach * dx)) / 2;
  const ry = (Math.floor(cy0 + reach * dy) - Math.floor(cy0 - reach * dy)) / 2;
  // A gradient shorter than a pixel keeps its exact ends rather than collapsing to a point.
  const [hx, hy] = rx === 0 && ry === 0 ? [reach * dx, reach * dy] : [rx, ry];
  const half = Math.max(1e-9, Math.hypot(hx, hy));
  const ux = hx / half;
  const uy = hy / half;
  const length = 2 * half;
  switch (content.style ?? "linear") {
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
        const turn = (Math.atan2(-(y - cy), x - cx) - angle) / (2 * Math.PI);
        return 1 - (((turn % 1) + 1) % 1);
      };
    default:
      return (x, y) => ((x - cx) * ux + (y - cy) * uy) / length + 0.5;
  }
}
