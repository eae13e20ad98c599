import { describe, expect, it } from "vitest";
import { buildScript } from "../../../src/hosts/photoshop/operations.js";
import { runExtendScript } from "../../fakes/photoshop/extendscript/run.js";
import { FakeModel } from "../../fakes/photoshop/model.js";

type Point = [number, number];
interface Outline {
  d: string;
  box: { x: number; y: number; width: number; height: number };
}

const ELLIPSE = { x: 100, y: 100, width: 160, height: 100 };
const CENTRE: Point = [ELLIPSE.x + ELLIPSE.width / 2, ELLIPSE.y + ELLIPSE.height / 2];

/** selection.path of an ellipse selection, with the script as the bridge sends it or as `edit` changes it. */
function ellipseOutline(counterClockwise: boolean, edit: (script: string) => string = (s) => s): Outline {
  const model = FakeModel.withSample(() => {});
  runExtendScript(model, buildScript("selection.set", { shape: { kind: "ellipse", rect: ELLIPSE } }));
  const text = runExtendScript(model, edit(buildScript("selection.path", { expand: 0 })), new Map(), { counterClockwise }).text;
  return JSON.parse(text).result as Outline;
}

/** The cubic segments of SVG path data made of M, C and Z commands, as [start, control 1, control 2, end]. */
function cubics(d: string): Array<[Point, Point, Point, Point]> {
  const out: Array<[Point, Point, Point, Point]> = [];
  let at: Point = [0, 0];
  for (const command of d.trim().split(/\s+(?=[MCZ])/)) {
    const n = command.slice(1).trim().split(/\s+/).filter(Boolean).map(Number);
    if (command[0] === "M") at = [n[0]!, n[1]!];
    if (command[0] === "C") {
      out.push([at, [n[0]!, n[1]!], [n[2]!, n[3]!], [n[4]!, n[5]!]]);
      at = [n[4]!, n[5]!];
    }
  }
  return out;
}

const bezier = ([p0, p1, p2, p3]: [Point, Point, Point, Point], t: number): Point => {
  const u = 1 - t;
  const f = (i: 0 | 1): number => u * u * u * p0[i] + 3 * u * u * t * p1[i] + 3 * u * t * t * p2[i] + t * t * t * p3[i];
  return [f(0), f(1)];
};

/** Which side of the line a→b the point p is on (the sign of the cross product). */
const side = (a: Point, b: Point, p: Point): number => Math.sign((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]));

/**
 * How many sampled points of the outline's curves lie where a convex outline bulging outwards puts them: across
 * each segment's chord from the centre (outside the polygon of anchors) and inside the ellipse's bounding box.
 */
function outwardSamples(outline: Outline): { outward: number; total: number } {
  let outward = 0;
  let total = 0;
  for (const segment of cubics(outline.d)) {
    for (const t of [0.25, 0.5, 0.75]) {
      const p = bezier(segment, t);
      const across = side(segment[0], segment[3], p) === -side(segment[0], segment[3], CENTRE);
      const inBox = p[0] >= ELLIPSE.x && p[0] <= ELLIPSE.x + ELLIPSE.width && p[1] >= ELLIPSE.y && p[1] <= ELLIPSE.y + ELLIPSE.height;
      total++;
      if (across && inBox) outward++;
    }
  }
  return { outward, total };
}

describe("selection.path of a curved selection", () => {
  it.each([false, true])("outlines an ellipse as a convex curve bulging outwards, whichever way round Photoshop walks it (counter-clockwise: %s)", (ccw) => {
    const outline = ellipseOutline(ccw);
    expect(outline.box).toEqual(ELLIPSE);
    expect(cubics(outline.d)).toHaveLength(4);
    expect(outwardSamples(outline)).toEqual({ outward: 12, total: 12 });
  });

  it("bulges inwards if the script read each point's direction handles the other way round", () => {
    const swapped = (script: string): string =>
      script.replaceAll("prev.rightDirection", "prev.@left").replaceAll("pt.leftDirection", "pt.rightDirection").replaceAll("prev.@left", "prev.leftDirection");
    expect(swapped(buildScript("selection.path", {}))).not.toBe(buildScript("selection.path", {}));
    expect(outwardSamples(ellipseOutline(false, swapped)).outward).toBe(0);
  });
});
