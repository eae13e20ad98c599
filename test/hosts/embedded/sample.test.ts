import { firstValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { createEmbeddedHost } from "../../../src/hosts/embedded/index.js";
import { HostDocumentSchema, HostLayerSchema } from "../../../src/protocol/index.js";
import { SAMPLE, connectedHost, ctx, flatten, layersOf } from "./helpers.js";

describe("embedded host: sample document and index space", () => {
  it("connect reports the embedded host version and opens the sample document", async () => {
    const host = createEmbeddedHost();
    expect(host.kind).toBe("embedded");
    expect(await host.connect()).toEqual({ hostVersion: expect.stringMatching(/^embedded \d+\.\d+\.\d+$/) });
    const doc = await host.getDocument(ctx(), undefined);
    expect(HostDocumentSchema.parse(doc)).toMatchObject({ id: 1, name: "Sample", width: 800, height: 600, resolution: 72, colorMode: "RGB", isDirty: false });
    expect(await host.getSelection(ctx(), undefined)).toBeNull();
  });

  it("the sample lists Label, the Product group with Subject and Shadow, and Background, top to bottom", async () => {
    const host = await connectedHost();
    const tree = (await host.getDocumentTree(ctx(), undefined)).layers;
    expect(tree.map((l) => [l.name, l.kind])).toEqual([
      ["Label", "pixel"],
      ["Product", "group"],
      ["Background", "background"],
    ]);
    const product = tree[1]!;
    expect(product.children?.map((l) => l.name)).toEqual(["Subject", "Shadow"]);
    const shadow = product.children![1]!;
    expect(shadow.opacity).toBe(60);
    expect(tree[2]!.bounds).toEqual({ left: 0, top: 0, right: 800, bottom: 600 });
    for (const layer of flatten(tree)) HostLayerSchema.parse(layer);
  });

  it("a group's bounds are the union of its children's non-transparent pixels", async () => {
    const host = await connectedHost();
    const [, product] = (await host.getDocumentTree(ctx(), undefined)).layers;
    const [subject, shadow] = product!.children!;
    expect(product!.bounds).toEqual({
      left: Math.min(subject!.bounds.left, shadow!.bounds.left),
      top: Math.min(subject!.bounds.top, shadow!.bounds.top),
      right: Math.max(subject!.bounds.right, shadow!.bounds.right),
      bottom: Math.max(subject!.bounds.bottom, shadow!.bounds.bottom),
    });
    expect(subject!.rect).toEqual({
      x: subject!.bounds.left,
      y: subject!.bounds.top,
      width: subject!.bounds.right - subject!.bounds.left,
      height: subject!.bounds.bottom - subject!.bounds.top,
    });
  });

  it("Subject is the only active layer", async () => {
    const host = await connectedHost();
    expect((await host.getDocument(ctx(), undefined)).activeLayerIds).toEqual([SAMPLE.subject]);
    expect((await layersOf(host)).find((l) => l.id === SAMPLE.subject)?.name).toBe("Subject");
  });

  it("indices count every layer in panel order, a group before its children", async () => {
    const host = await connectedHost();
    const layers = await layersOf(host);
    expect(layers.map((l) => [l.index, l.name])).toEqual([
      [0, "Label"],
      [1, "Product"],
      [2, "Subject"],
      [3, "Shadow"],
      [4, "Background"],
    ]);
  });

  it("without the sample there is no document; lost$ never fires and close is idempotent", async () => {
    const host = await connectedHost({ sample: false });
    await expect(host.getDocument(ctx(), undefined)).rejects.toMatchObject({ code: "NO_DOCUMENT" });
    expect(await host.listDocuments(ctx())).toEqual([]);
    const lost = firstValueFrom(host.lost$).then(() => "lost");
    expect(await Promise.race([lost, Promise.resolve("quiet")])).toBe("quiet");
    await host.close();
    await host.close();
  });

  it("has no stream for an event type it never produces", () => {
    const host = createEmbeddedHost();
    expect(host.events("something:else")).toBeUndefined();
  });
});
