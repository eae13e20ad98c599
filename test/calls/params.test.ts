import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkedParams } from "../../src/calls/params.js";
import type { MethodDefinition } from "../../src/methods/index.js";

/** A method with only what `checkedParams` reads. */
function method(params: z.ZodType): MethodDefinition {
  return { name: "test:method", params } as unknown as MethodDefinition;
}

describe("a call's params", () => {
  it("a method that takes nothing gets a new empty object for absent or empty params, one per call", () => {
    const none = method(z.object({}).strict());
    const first = checkedParams("test:method", none, undefined);
    expect(first).toEqual({});
    expect(checkedParams("test:method", none, null)).toEqual({});
    const second = checkedParams("test:method", none, {});
    expect(second).toEqual({});
    expect(second).not.toBe(first);
  });

  it("the schema still runs for what it would change or refuse: defaults, unknown keys, wrong kinds", () => {
    const withDefault = method(z.object({ depth: z.number().int().default(3) }).strict());
    expect(checkedParams("test:method", withDefault, undefined)).toEqual({ depth: 3 });
    expect(checkedParams("test:method", withDefault, {})).toEqual({ depth: 3 });
    expect(checkedParams("test:method", withDefault, { depth: 5 })).toEqual({ depth: 5 });
    const strictNone = method(z.object({}).strict());
    expect(() => checkedParams("test:method", strictNone, { extra: 1 })).toThrow(expect.objectContaining({ code: "BAD_REQUEST" }));
    expect(() => checkedParams("test:method", strictNone, [])).toThrow(expect.objectContaining({ code: "BAD_REQUEST" }));
    const required = method(z.object({ documentId: z.number() }));
    expect(() => checkedParams("test:method", required, {})).toThrow(expect.objectContaining({ code: "BAD_REQUEST" }));
    expect(() => checkedParams("test:method", required, undefined)).toThrow(expect.objectContaining({ code: "BAD_REQUEST" }));
  });
});
