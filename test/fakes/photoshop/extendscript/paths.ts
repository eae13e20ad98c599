/*
 * Selection geometry in the DOM stub: a selection is its box, clipped to the canvas, or an ellipse inside it.
 * The work path the stub's Selection.makeWorkPath makes: a rectangle's four corners, or an ellipse as four cubic
 * Bézier arcs. Each point carries its two direction points as the Photoshop JavaScript Reference defines them
 * (PathPoint, https://theiviaxx.github.io/photoshop-docs/Photoshop/PathPoint.html): `leftDirection` is the "in"
 * position, the handle of the segment that arrives at the point from the one before it; `rightDirection` is the
 * "out" position, the handle of the segment that leaves it for the next. Straight segments have both on the anchor.
 */
import type { FakeDocument, FakePath, FakeSelection } from "../model.js";

type Point = [number, number];

/** The box x0, y0 – x1, y1 cut to the canvas, or null when nothing of it is on the canvas. */
export function clip(d: FakeDocument, x0: number, y0: number, x1: number, y1: number): FakeSelection {
  const [a, b, c, e] = [Math.max(0, x0), Math.max(0, y0), Math.min(d.width, x1), Math.min(d.height, y1)];
  return c > a && e > b ? { x: a, y: b, width: c - a, height: e - b } : null;
}

/** The ellipse inscribed in the box; one the canvas cuts off is kept as its clipped box. */
export function ellipse(d: FakeDocument, x0: number, y0: number, x1: number, y1: number): FakeSelection {
  const inside = x0 >= 0 && y0 >= 0 && x1 <= d.width && y1 <= d.height && x1 > x0 && y1 > y0;
  return inside ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0, ellipse: true } : clip(d, x0, y0, x1, y1);
}

/**
 * How far along the tangent a quarter ellipse's handles sit, as a fraction of the radius: 4(√2 − 1)/3 puts the
 * arc's midpoint on the ellipse.
 */
const KAPPA = (4 * (Math.SQRT2 - 1)) / 3;

/** The work path Photoshop makes from `s`; `counterClockwise` walks it the other way round on screen. */
export function workPath(s: NonNullable<FakeSelection>, counterClockwise = false): FakePath {
  const { x, y, width: w, height: h } = s;
  if (!s.ellipse) {
    const corners: Point[] = [[x, y], [x + w, y], [x + w, y + h], [x, y + h]];
    const points = counterClockwise ? corners.reverse() : corners;
    return { name: "Work Path", kind: "WORKPATH", points, handles: points.map((p) => ({ in: p, out: p })) };
  }
  const [cx, cy, rx, ry] = [x + w / 2, y + h / 2, w / 2, h / 2];
  // Clockwise on screen (y grows downwards): top, right, bottom, left, each with its direction of travel.
  const around: Array<{ at: Point; along: Point }> = [
    { at: [cx, y], along: [rx * KAPPA, 0] },
    { at: [x + w, cy], along: [0, ry * KAPPA] },
    { at: [cx, y + h], along: [-rx * KAPPA, 0] },
    { at: [x, cy], along: [0, -ry * KAPPA] },
  ];
  const walk = counterClockwise ? around.reverse().map(({ at, along }) => ({ at, along: [-along[0], -along[1]] as Point })) : around;
  return {
    name: "Work Path",
    kind: "WORKPATH",
    points: walk.map((p) => p.at),
    handles: walk.map(({ at, along }) => ({ in: [at[0] - along[0], at[1] - along[1]], out: [at[0] + along[0], at[1] + along[1]] })),
  };
}
