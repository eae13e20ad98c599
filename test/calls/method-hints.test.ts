import { describe, expect, it } from "vitest";
import { editDistance, NameHints, nearestName, unknownMethodError } from "../../src/calls/method-hints.js";
import { withoutStack } from "../../src/protocol/index.js";

/** The plain definition, to check the fast one against. */
function levenshtein(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
  }
  return d[a.length]![b.length]!;
}

const NAMES = ["document:current", "document:list", "layer:getInfoById", "layer:importImage", "image:exportLayer", "selection:set", "getServerInfo"];

describe("method hints", () => {
  it("the edit distance is Levenshtein's, cut at its limit, for names of any length", () => {
    const words = ["", "a", "layer:select", "layer:selcet", "LAYER:select", "document:currnet", "x".repeat(70), "y".repeat(80), ...NAMES];
    for (const a of words) {
      for (const b of words) {
        const exact = levenshtein(a, b);
        expect(editDistance(a, b, 100)).toBe(exact);
        expect(editDistance(a, b, 3)).toBe(Math.min(exact, 4));
      }
    }
  });

  it("suggestions are kept per name and are the nearest name's, or none", () => {
    const hints = new NameHints(NAMES);
    for (const wrong of ["document:currnet", "layer:importimage", "no:such-method", "getserverinfo", "z".repeat(65)]) {
      expect(hints.nearest(wrong)).toBe(nearestName(wrong, NAMES));
      expect(hints.nearest(wrong)).toBe(nearestName(wrong, NAMES));
    }
    expect(hints.nearest("document:currnet")).toBe("document:current");
    expect(hints.nearest("no:such-method")).toBeUndefined();
    // Many different names: the kept ones are dropped past the bound and the answers stay right.
    for (let i = 0; i < 3_000; i++) {
      const name = i % 2 === 0 ? "layer:importImag" : `layer:importImag${i}`;
      expect(hints.nearest(name)).toBe(nearestName(name, NAMES));
    }
  });

  it("an unknown method's error carries no stack, and the stack limit is put back", () => {
    const before = Error.stackTraceLimit;
    const error = unknownMethodError("document:currnet", "root", [], new NameHints(NAMES));
    expect(error).toMatchObject({ code: "UNKNOWN_METHOD", details: { method: "document:currnet", suggestion: "document:current" } });
    expect(error.stack?.split("\n").filter((line) => line.trim().startsWith("at "))).toEqual([]);
    expect(Error.stackTraceLimit).toBe(before);
    expect(() =>
      withoutStack(() => {
        throw new Error("made while making it");
      }),
    ).toThrow("made while making it");
    expect(Error.stackTraceLimit).toBe(before);
    // Errors made elsewhere still have their stacks.
    expect(new Error("ordinary").stack).toContain(" at ");
  });
});
