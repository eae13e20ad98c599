import type { LayerEdit } from "../../edits.js";

/** Below this, a matrix coefficient is taken as exactly 0 or 1 (what cos/sin leave of a quarter turn). */
const MATRIX_EPSILON = 1e-12;

/**
 * The affine matrix of a layer transform, in document pixels with y pointing down: `x' = a·x + b·y + c`,
 * `y' = d·x + e·y + f`. Scale, then rotate clockwise, then flip, all about the anchor, then move.
 * `translation` is true when only the move is left (no resampling needed).
 */
export function layerMatrix(edit: Extract<LayerEdit, { op: "layer:transform" }>): {
  a: number;
  b: number;
  c: number;
  d: number;
  e: number;
  f: number;
  translation: boolean;
} {
  const radians = (edit.angle * Math.PI) / 180;
  const clean = (v: number): number => (Math.abs(v) < MATRIX_EPSILON ? 0 : Math.abs(Math.abs(v) - 1) < MATRIX_EPSILON ? Math.sign(v) : v);
  const cos = clean(Math.cos(radians));
  const sin = clean(Math.sin(radians));
  const sx = edit.scaleX / 100;
  const sy = edit.scaleY / 100;
  const fx = edit.flip === "horizontal" || edit.flip === "both" ? -1 : 1;
  const fy = edit.flip === "vertical" || edit.flip === "both" ? -1 : 1;
  // F · R · S with R = [[cos, -sin], [sin, cos]] (clockwise on screen, y down).
  const a = clean(fx * cos * sx);
  const b = clean(-fx * sin * sy);
  const d = clean(fy * sin * sx);
  const e = clean(fy * cos * sy);
  const { x, y } = edit.anchor;
  const translation = a === 1 && b === 0 && d === 0 && e === 1;
  if (translation) return { a, b, c: edit.dx, d, e, f: edit.dy, translation };
  return { a, b, c: x + edit.dx - (a * x + b * y), d, e, f: y + edit.dy - (d * x + e * y), translation };
}

/**
 * A matrix that only turns by quarters and mirrors, with a whole-pixel move: as clockwise quarter turns, then a
 * horizontal mirror (`M = mirror · turn`). GIMP makes these exactly (`gimp-item-transform-rotate-simple`,
 * `…-flip-simple`); through the general matrix it resamples them and softens the layer's edges. Undefined for any
 * other matrix.
 */
export function exactTurn(m: ReturnType<typeof layerMatrix>): { quarters: 0 | 1 | 2 | 3; mirror: boolean } | undefined {
  const unit = [m.a, m.b, m.d, m.e].every((v) => v === 0 || v === 1 || v === -1);
  if (!unit || Math.abs(m.a) === Math.abs(m.b) || !Number.isInteger(m.c) || !Number.isInteger(m.f)) return undefined;
  const mirror = m.a * m.e - m.b * m.d < 0;
  // The turn left once the mirror is taken off: [[cos, −sin], [sin, cos]].
  const [cos, sin] = mirror ? [-m.a, m.d] : [m.a, m.d];
  const quarters = cos === 1 ? 0 : sin === 1 ? 1 : cos === -1 ? 2 : 3;
  return { quarters, mirror };
}
