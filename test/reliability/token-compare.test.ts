import { describe, expect, it, vi } from "vitest";

// Wraps the real timingSafeEqual so the test can see how the token check calls it.
const compare = vi.hoisted(() => ({ calls: [] as Array<[number, number]> }));
vi.mock("node:crypto", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:crypto")>();
  return {
    ...real,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView): boolean => {
      compare.calls.push([a.byteLength, b.byteLength]);
      return real.timingSafeEqual(a, b);
    },
  };
});

const { tokenMatches } = await import("../../src/transports/security.js");

describe("token comparison", () => {
  it("always goes through timingSafeEqual on equal-length buffers, whatever the presented token's length", () => {
    const expected = "s3cret-Token-0123456789";
    const presented = ["", "s", expected.slice(0, -1), `${expected}x`, "x".repeat(100_000), "é".repeat(23), expected];
    const results = presented.map((p) => tokenMatches(p, expected));
    expect(results).toEqual([false, false, false, false, false, false, true]);
    expect(compare.calls).toHaveLength(presented.length);
    for (const [a, b] of compare.calls) {
      expect(a).toBe(b);
      expect(a).toBeGreaterThan(0);
    }
  });
});
