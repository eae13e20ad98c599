/**
 * Crack-following contour tracer: walks the pixel edges between inside and outside pixels of a mask, so every
 * vertex has integer coordinates and the outline encloses exactly the inside pixels. Outer outlines run
 * clockwise on screen (y down) and holes anticlockwise, so `fill-rule="evenodd"` (or nonzero) renders holes.
 * Inside pixels touching only at a corner are separate outlines (4-connectivity).
 */

/** A binary view of a mask: a pixel is inside when its byte is at least `threshold`. */
export interface MaskLike {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array | Uint8ClampedArray;
}

/** A closed outline: `[x0, y0, x1, y1, …]` corner vertices in mask pixels; the last vertex joins the first. */
export type Loop = number[];

/** Step per direction: 0 = +x (right), 1 = +y (down), 2 = −x, 3 = −y. */
const DX = [1, 0, -1, 0] as const;
const DY = [0, 1, 0, -1] as const;

/**
 * Every outline of the inside pixels. Each directed pixel edge belongs to exactly one loop; a loop starts at an
 * unvisited top edge (inside pixel below, outside above) and keeps the inside on its right.
 */
export function traceContours(mask: MaskLike, threshold = 128): Loop[] {
  const { width: w, height: h, data } = mask;
  const inside = (x: number, y: number): boolean => x >= 0 && y >= 0 && x < w && y < h && (data[y * w + x] ?? 0) >= threshold;
  // visited[y * w + x]: the top edge of pixel (x, y) was walked.
  const visited = new Uint8Array(w * h);
  const loops: Loop[] = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (visited[i] || !inside(x, y) || inside(x, y - 1)) continue;
      loops.push(walk(x, y, inside, visited, w));
    }
  }
  return loops;
}

function walk(x0: number, y0: number, inside: (x: number, y: number) => boolean, visited: Uint8Array, w: number): Loop {
  const loop: Loop = [x0, y0];
  let vx = x0;
  let vy = y0;
  let dir = 0;
  for (;;) {
    if (dir === 0) visited[vy * w + vx] = 1;
    vx += DX[dir] ?? 0;
    vy += DY[dir] ?? 0;
    // The two pixels ahead of vertex (vx, vy), to the left and right of the direction of travel.
    const ahead = aheadPixels(vx, vy, dir);
    const right = inside(ahead[2], ahead[3]);
    const left = inside(ahead[0], ahead[1]);
    // Right outside: turn right. Both inside: turn left. Otherwise straight. A diagonal pair turns right (4-conn.).
    const next = !right ? (dir + 1) & 3 : left ? (dir + 3) & 3 : dir;
    // Done when about to walk the first edge again (a loop may pass its start vertex once before, at a saddle).
    if (vx === x0 && vy === y0 && next === 0) break;
    if (next !== dir) loop.push(vx, vy);
    dir = next;
  }
  return loop;
}

/** `[leftX, leftY, rightX, rightY]` of the pixels ahead of vertex (vx, vy) when moving in `dir`. */
function aheadPixels(vx: number, vy: number, dir: number): [number, number, number, number] {
  switch (dir) {
    case 0:
      return [vx, vy - 1, vx, vy];
    case 1:
      return [vx, vy, vx - 1, vy];
    case 2:
      return [vx - 1, vy, vx - 1, vy - 1];
    default:
      return [vx - 1, vy - 1, vx, vy - 1];
  }
}

/** Signed area of a loop (shoelace); positive for the clockwise-on-screen outer outlines. */
export function loopArea(loop: Loop): number {
  let sum = 0;
  const n = loop.length / 2;
  for (let i = 0; i < n; i++) {
    const j = (i + 1) % n;
    sum += (loop[2 * i] ?? 0) * (loop[2 * j + 1] ?? 0) - (loop[2 * j] ?? 0) * (loop[2 * i + 1] ?? 0);
  }
  return sum / 2;
}
