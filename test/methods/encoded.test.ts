import { describe, expect, it } from "vitest";
import { keepEncoding, keptAnswerFrame } from "../../src/methods/index.js";

/*
 * A kept answer's response frame is copied from its kept UTF-8 bytes: it must be byte for byte what serializing the
 * response would give, whatever the request's id.
 */
describe("a kept answer's response frame", () => {
  const result = keepEncoding({ name: "bridge", note: "accents é, a check ✓ and an emoji 😀", list: [1, 2.5, null, true], nested: { empty: {} } });

  it("is the bytes of JSON.stringify({ id, ok: true, result }) for number and string ids, ASCII or not", () => {
    for (const id of [0, 7, -12, Number.MAX_SAFE_INTEGER, "a", "req-1", 'with "quotes" and \\ and \n', "é✓😀", "\u2028"]) {
      const frame = keptAnswerFrame(id, result);
      expect(frame).toBeInstanceOf(Buffer);
      expect(frame!.equals(Buffer.from(JSON.stringify({ id, ok: true, result })))).toBe(true);
    }
  });

  it("is undefined for a result whose JSON is not kept, which is then serialized as usual", () => {
    expect(keptAnswerFrame(1, { name: "bridge" })).toBeUndefined();
    expect(keptAnswerFrame(1, null)).toBeUndefined();
    expect(keptAnswerFrame(1, "text")).toBeUndefined();
  });

  it("keeps the answer frozen, so the kept bytes cannot go stale by a change in place", () => {
    expect(Object.isFrozen(result)).toBe(true);
  });
});
