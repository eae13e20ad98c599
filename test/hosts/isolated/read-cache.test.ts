import { describe, expect, it } from "vitest";
import { ReadCache } from "../../../src/hosts/isolated/read-cache.js";

describe("the read cache in front of the editor process", () => {
  it("answers a repeated small read once, frozen, until a change is sent", async () => {
    const cache = new ReadCache();
    let sent = 0;
    const send = async () => ({ id: 1, n: ++sent, layers: [{ id: 2 }] });
    const first = (await cache.run("getDocument", [undefined], send)) as { n: number; layers: Array<{ id: number }> };
    expect(await cache.run("getDocument", [undefined], send)).toBe(first);
    expect(sent).toBe(1);
    expect(() => {
      first.layers[0]!.id = 9;
    }).toThrow(TypeError);
    // Other arguments are other answers; exports and outlines are never cached and change nothing.
    await cache.run("getDocument", [1], send);
    await cache.run("exportDocumentImage", [{}], send);
    await cache.run("exportDocumentImage", [{}], send);
    expect(sent).toBe(4);
    expect(await cache.run("getDocument", [undefined], send)).toBe(first);
    await cache.run("setSelection", [{}], send);
    expect(((await cache.run("getDocument", [undefined], send)) as { n: number }).n).toBe(6);
  });

  it("does not keep a read that was answered while a change ran", async () => {
    const cache = new ReadCache();
    let release!: () => void;
    const slowRead = cache.run("listDocuments", [], () => new Promise((resolve) => (release = () => resolve(["old"]))));
    await cache.run("createDocument", [{}], async () => "made");
    release();
    expect(await slowRead).toEqual(["old"]);
    expect(await cache.run("listDocuments", [], async () => ["new"])).toEqual(["new"]);
  });
});
