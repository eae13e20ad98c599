import type { Loop } from "./contour.js";

/**
 * Ramer–Douglas–Peucker simplification of a closed loop: keeps the vertices that deviate more than `epsilon`
 * pixels from the chord of the run they sit on. Staircases of an ellipse collapse; rectangle corners stay (they
 * deviate by at least a pixel), so `epsilon` below 1 leaves axis-aligned outlines exact.
 */
export function simplifyLoop(loop: Loop, epsilon: number): Loop {
  const n = loop.length / 2;
  if (n <= 4 || epsilon <= 0) return loop;
  // Split the ring at vertex 0 and the vertex farthest from it, then simplify both open runs.
  let far = 0;
  let farDist = -1;
  for (let i = 1; i < n; i++) {
    const d = ((loop[2 * i] ?? 0) - (loop[0] ?? 0)) ** 2 + ((loop[2 * i + 1] ?? 0) - (loop[1] ?? 0)) ** 2;
    if (d > farDist) {
      farDist = d;
      far = i;
    }
  }
  const keep = new Uint8Array(n + 1);
  keep[0] = 1;
  keep[far] = 1;
  keep[n] = 1;
  const at = (i: number): [number, number] => [loop[2 * (i % n)] ?? 0, loop[2 * (i % n) + 1] ?? 0];
  // Iterative, so long outlines cannot overflow the stack.
  const stack: Array<[number, number]> = [
    [0, far],
    [far, n],
  ];
  const eps2 = epsilon * epsilon;
  while (stack.length > 0) {
    const [a, b] = stack.pop()!;
    if (b - a < 2) continue;
    const [ax, ay] = at(a);
    const [bx, by] = at(b);
    const dx = bx - ax;
    const dy = by - ay;
    const len2 = dx * dx + dy * dy;
    let worst = -1;
    let worstDist = 0;
    for (let i = a + 1; i < b; i++) {
      const [px, py] = at(i);
      const d2 =
        len2 === 0 ? (px - ax) ** 2 + (py - ay) ** 2 : ((dx * (ay - py) - dy * (ax - px)) ** 2) / len2;
      if (d2 > worstDist) {
        worstDist = d2;
        worst = i;
      }
    }
    if (worst >= 0 && worstDist > eps2) {
      keep[worst] = 1;
      stack.push([a, worst], [worst, b]);
    }
  }
  const out: Loop = [];
  for (let i = 0; i < n; i++) if (keep[i]) out.push(loop[2 * i] ?? 0, loop[2 * i + 1] ?? 0);
  return out;
}
