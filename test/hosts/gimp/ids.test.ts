import { describe, expect, it } from "vitest";
import { IdSpace } from "../../../src/hosts/gimp/ids.js";

describe("the GIMP adapter's stable ids", () => {
  it("are GIMP's own until the first restart", () => {
    const ids = new IdSpace();
    expect([ids.out(1), ids.out(7), ids.in(3)]).toEqual([1, 7, 3]);
    expect(ids.out(-1)).toBe(-1);
  });

  it("after a restart, keep the reopened ids, give new ones ids no old one had, and refuse ids of the lost process", () => {
    const ids = new IdSpace();
    for (const id of [1, 2, 5]) ids.out(id);
    ids.restart();
    // The new GIMP reopened old image 2 as its image 1.
    ids.keep(2, 1);
    expect(ids.out(1)).toBe(2);
    expect(ids.in(2)).toBe(1);
    // Its image 2 (new) is shown past every old id and maps back.
    const fresh = ids.out(2);
    expect(fresh).toBeGreaterThan(5);
    expect(ids.in(fresh)).toBe(2);
    // Old ids that did not come back reach nothing, nor does the alias of a reopened image.
    expect(ids.in(1)).toBeUndefined();
    expect(ids.in(5)).toBeUndefined();
    expect(ids.in(5 + 1)).toBeUndefined();
    // A second restart moves past the ids of the first.
    ids.restart();
    ids.keep(fresh, 1);
    expect(ids.out(1)).toBe(fresh);
    expect(ids.out(2)).toBeGreaterThan(fresh);
    expect(ids.in(2)).toBeUndefined();
  });

  it("forget a closed image's mapping", () => {
    const ids = new IdSpace();
    ids.out(3);
    ids.restart();
    ids.keep(3, 1);
    ids.drop(3);
    expect(ids.in(3)).toBeUndefined();
  });
});

describe("ids a client makes up", () => {
  it("do not move the ids of later processes", () => {
    const ids = new IdSpace();
    ids.out(4);
    expect(ids.in(9_000_000_000_000_000)).toBe(9_000_000_000_000_000);
    ids.restart();
    expect(ids.out(1)).toBe(5);
  });
});
