/*
 * Anti-aliased coverage of closed polygons: how much of each pixel lies inside, 0–1. Each pixel row is sampled on
 * {@link SUBSCANLINES} horizontal lines; on each line the inside spans (by the fill rule) count with their exact
 * horizontal extent, so vertical edges are exact and horizontal ones are right to 1/16. Spans go into a
 * difference array, so a long span costs the same as a short one.
 */
import { ROW_BAND, RowBands, type RowWork } from "../work.js";

/** Sample lines per pixel row: 16 puts an edge at a half pixel at exactly 0.5 and keeps errors under 1/32. */
export const SUBSCANLINES = 16;

/** A closed polygon, its vertices in document pixels (pixel centres at +0.5). */
export interface Polygon {
  readonly xs: readonly number[];
  readonly ys: readonly number[];
}

/** A pixel rectangle. */
export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

interface Edge {
  readonly x0: number;
  readonly y0: number;
  readonly y1: number;
  readonly slope: number;
  readonly dir: 1 | -1;
}

/**
 * Coverage of `polygons` under `rule`, one float per pixel of `box` (row-major), written into `out`.
 * `work` hears of every {@link ROW_BAND} rows.
 */
export function polygonCoverage(polygons: readonly Polygon[], rule: "even-odd" | "non-zero", box: Box, out: Float32Array, work?: RowWork): void {
  out.fill(0);
  const edges = toEdges(polygons).sort((a, b) => a.y0 - b.y0);
  const acc = new Float64Array(box.width + 2);
  const crossings: Array<{ x: number; dir: number }> = [];
  let next = 0;
  let active: Edge[] = [];
  const bands = new RowBands(work);
  for (let row = 0; row < box.height; row++) {
    bands.next();
    acc.fill(0);
    const py = box.y + row;
    for (let k = 0; k < SUBSCANLINES; k++) {
      const sy = py + (k + 0.5) / SUBSCANLINES;
      while (next < edges.length && (edges[next]?.y0 ?? Infinity) <= sy) active.push(edges[next++]!);
      active = active.filter((e) => e.y1 > sy);
      crossings.length = 0;
      for (const e of active) if (e.y0 <= sy) crossings.push({ x: e.x0 + (sy - e.y0) * e.slope, dir: e.dir });
      crossings.sort((a, b) => a.x - b.x);
      let winding = 0;
      let start = 0;
      for (const c of crossings) {
        const wasInside = rule === "even-odd" ? (winding & 1) !== 0 : winding !== 0;
        winding += c.dir;
        const isInside = rule === "even-odd" ? (winding & 1) !== 0 : winding !== 0;
        if (!wasInside && isInside) start = c.x;
        else if (wasInside && !isInside) addSpan(acc, start - box.x, c.x - box.x, box.width);
      }
    }
    // The difference array's running sum is each pixel's coverage in sample lines.
    let run = 0;
    const base = row * box.width;
    for (let x = 0; x < box.width; x++) {
      run += acc[x] ?? 0;
      out[base + x] = Math.min(1, Math.max(0, run / SUBSCANLINES));
    }
  }
  bands.end(box.height);
}

/** Adds a span `[a, b)` (box coordinates) to a row's difference array: fractional ends, whole pixels between. */
function addSpan(acc: Float64Array, a: number, b: number, width: number): void {
  const lo = Math.max(0, a);
  const hi = Math.min(width, b);
  if (hi <= lo) return;
  const i = Math.floor(lo);
  const j = Math.floor(hi);
  if (i === j) {
    bump(acc, i, hi - lo);
    return;
  }
  bump(acc, i, i + 1 - lo);
  // Whole pixels i+1 … j−1: +1 from i+1, −1 from j.
  acc[i + 1] = (acc[i + 1] ?? 0) + 1;
  acc[j] = (acc[j] ?? 0) - 1;
  if (hi > j) bump(acc, j, hi - j);
}

/** Adds `v` to one pixel only (in difference form: +v at i, −v at i+1). */
function bump(acc: Float64Array, i: number, v: number): void {
  acc[i] = (acc[i] ?? 0) + v;
  acc[i + 1] = (acc[i + 1] ?? 0) - v;
}

function toEdges(polygons: readonly Polygon[]): Edge[] {
  const edges: Edge[] = [];
  for (const { xs, ys } of polygons) {
    const n = Math.min(xs.length, ys.length);
    for (let i = 0; i < n; i++) {
      const ax = xs[i] ?? 0;
      const ay = ys[i] ?? 0;
      const bx = xs[(i + 1) % n] ?? 0;
      const by = ys[(i + 1) % n] ?? 0;
      if (ay === by || !Number.isFinite(ax + ay + bx + by)) continue;
      const down = by > ay;
      const [x0, y0, y1] = down ? [ax, ay, by] : [bx, by, ay];
      edges.push({ x0, y0, y1, slope: (down ? bx - ax : ax - bx) / (y1 - y0), dir: down ? 1 : -1 });
    }
  }
  return edges;
}
