/*
 * What the fake's whole-document and selection edits do to its solid-colour rectangles: every layer (and a mask
 * that reveals a box) is mapped corner by corner and kept as the bounding box of the result, rounded to pixels,
 * as Photoshop reports a layer's bounds. Selections are boxes too (`FakeSelection`).
 */
import type { FakeSelection } from "./model.js";
import type { Bounds, FakeLayer } from "./layers.js";

export type Point = [number, number];

const EMPTY: Bounds = { left: 0, top: 0, right: 0, bottom: 0 };
export const isEmpty = (b: Bounds): boolean => b.right <= b.left || b.bottom <= b.top;

/** The bounding box of points, rounded to whole pixels. */
export function boxOf(points: readonly Point[]): Bounds {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const r = (v: number): number => Math.round(v * 1e6) / 1e6;
  return { left: Math.floor(r(Math.min(...xs))), top: Math.floor(r(Math.min(...ys))), right: Math.ceil(r(Math.max(...xs))), bottom: Math.ceil(r(Math.max(...ys))) };
}

const corners = (b: Bounds): Point[] => [[b.left, b.top], [b.right, b.top], [b.right, b.bottom], [b.left, b.bottom]];

/** Every leaf layer of a tree (a group's own rectangle means nothing). */
export function leaves(layers: readonly FakeLayer[]): FakeLayer[] {
  return layers.flatMap((l) => (l.children ? leaves(l.children) : [l]));
}

/** Maps every leaf's rectangle (and a linked mask's box) through `f`; an empty one stays empty. */
export function mapLayers(layers: readonly FakeLayer[], f: (p: Point) => Point, linkedOnly = false): void {
  for (const l of leaves(layers)) {
    const b = { left: l.left, top: l.top, right: l.right, bottom: l.bottom };
    if (!isEmpty(b)) Object.assign(l, boxOf(corners(b).map(f)));
    const m = l.mask;
    if (m && typeof m.reveals === "object" && (!linkedOnly || m.linked)) m.reveals = boxOf(corners(m.reveals).map(f));
  }
}

/** Cuts every leaf to `canvas` (pixels outside a cropped canvas are deleted). */
export function clipLayers(layers: readonly FakeLayer[], canvas: Bounds): void {
  for (const l of leaves(layers)) {
    const b = intersect({ left: l.left, top: l.top, right: l.right, bottom: l.bottom }, canvas);
    Object.assign(l, b ?? EMPTY);
  }
}

export function intersect(a: Bounds, b: Bounds): Bounds | null {
  const out = { left: Math.max(a.left, b.left), top: Math.max(a.top, b.top), right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom) };
  return isEmpty(out) ? null : out;
}

export function union(a: Bounds, b: Bounds): Bounds {
  return { left: Math.min(a.left, b.left), top: Math.min(a.top, b.top), right: Math.max(a.right, b.right), bottom: Math.max(a.bottom, b.bottom) };
}

/** The bounding box of `a` with `b` taken out of it, or null when nothing is left. */
export function subtract(a: Bounds, b: Bounds): Bounds | null {
  const cut = intersect(a, b);
  if (cut === null) return a;
  const pieces: Bounds[] = [
    { left: a.left, top: a.top, right: a.right, bottom: cut.top },
    { left: a.left, top: cut.bottom, right: a.right, bottom: a.bottom },
    { left: a.left, top: cut.top, right: cut.left, bottom: cut.bottom },
    { left: cut.right, top: cut.top, right: a.right, bottom: cut.bottom },
  ].filter((p) => !isEmpty(p));
  return pieces.length === 0 ? null : pieces.reduce(union);
}

export const boundsOf = (s: NonNullable<FakeSelection>): Bounds => ({ left: s.x, top: s.y, right: s.x + s.width, bottom: s.y + s.height });
export const selectionOf = (b: Bounds | null): FakeSelection => (b === null || isEmpty(b) ? null : { x: b.left, y: b.top, width: b.right - b.left, height: b.bottom - b.top });

/** A new selection combined with the one there is (replace, add, subtract, intersect), as boxes. */
export function combine(was: FakeSelection, next: Bounds | null, mode: "replace" | "add" | "subtract" | "intersect"): FakeSelection {
  const old = was === null ? null : boundsOf(was);
  if (mode === "replace") return selectionOf(next);
  if (mode === "add") return selectionOf(old === null ? next : next === null ? old : union(old, next));
  if (old === null) return null;
  if (next === null) return mode === "subtract" ? was : null;
  return selectionOf(mode === "subtract" ? subtract(old, next) : intersect(old, next));
}

/** A point turned `degrees` clockwise on screen (y grows downwards) about `c`. */
export function turn([x, y]: Point, degrees: number, [cx, cy]: Point): Point {
  const a = (degrees * Math.PI) / 180;
  const [dx, dy] = [x - cx, y - cy];
  return [cx + dx * Math.cos(a) - dy * Math.sin(a), cy + dx * Math.sin(a) + dy * Math.cos(a)];
}
