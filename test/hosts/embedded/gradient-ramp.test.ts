import type { ColorStop } from "ag-psd";
import { describe, expect, test } from "vitest";
import { buildRamp, RAMP_SIZE } from "../../../src/hosts/embedded/_internal/gradient-ramp.js";

const stop = (location: number, r: number, g: number, b: number): ColorStop => ({ color: { r, g, b }, location, midpoint: 0.5 });

/** The ramp's red channel at location `x` (0–1). */
function redAt(ramp: Uint8ClampedArray, x: number): number {
  return ramp[Math.round(x * (RAMP_SIZE - 1)) * 4] as number;
}

describe("smooth gradient stops", () => {
  test("two stops at 100 % blend half linearly, half by smoothstep", () => {
    const ramp = buildRamp({ colorStops: [stop(0, 0, 0, 0), stop(1, 255, 0, 0)], smoothness: 1 }, { scale: "descriptor" });
    for (const u of [0.1, 0.25, 0.5, 0.8]) {
      const want = 255 * (0.5 * u + 0.5 * u * u * (3 - 2 * u));
      expect(Math.abs(redAt(ramp, u) - want), `at ${u}`).toBeLessThanOrEqual(1);
    }
  });

  test("an inner stop that is a peak is flat there and its neighbours ease in (Photoshop's blue–yellow–blue ramp)", () => {
    // Measured from a stroke gradient Photoshop rendered: 11 at the outer stops, 253 at the middle one.
    const ramp = buildRamp({ colorStops: [stop(0.1, 11, 0, 0), stop(0.5, 253, 0, 0), stop(0.9, 11, 0, 0)], smoothness: 1 }, { scale: "descriptor" });
    const photoshop = [
      [0.1 + 0.4 / 12, 24],
      [0.1 + (0.4 * 3) / 12, 66],
      [0.3, 147],
      [0.1 + (0.4 * 9) / 12, 221],
      [0.5 - 0.4 / 12, 249],
    ] as const;
    for (const [x, red] of photoshop) expect(Math.abs(redAt(ramp, x) - red), `at ${x}`).toBeLessThanOrEqual(1);
  });

  test("a steep neighbour never swings the blend past the two stops it joins", () => {
    // Between 40 and 26 the cubic would dip below 0 (the next stop is 255): it stays between 26 and 40.
    const ramp = buildRamp({ colorStops: [stop(0, 40, 0, 0), stop(0.5, 26, 0, 0), stop(1, 255, 0, 0)], smoothness: 1 }, { scale: "descriptor" });
    for (let x = 0; x <= 0.5; x += 0.05) {
      expect(redAt(ramp, x)).toBeGreaterThanOrEqual(26);
      expect(redAt(ramp, x)).toBeLessThanOrEqual(40);
    }
  });

  test("at 0 % smoothness the blend is linear", () => {
    const ramp = buildRamp({ colorStops: [stop(0, 0, 0, 0), stop(0.5, 200, 0, 0), stop(1, 0, 0, 0)], smoothness: 0 }, { scale: "descriptor" });
    expect([redAt(ramp, 0.25), redAt(ramp, 0.75)]).toEqual([100, 100]);
  });
});
