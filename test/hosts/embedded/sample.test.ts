import { firstValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { createEmbeddedHost } from "../../../src/hosts/embedded/index.js";
import { HostDocumentSchema, HostLayerSchema } from "../../../src/protocol/index.js";
import { connectedHost, ctx, flatten } from "./helpers.js";

describe("embedded host: sample document and index space", () => {
  it("connect reports the embedded host version and opens the sample document", async () => {
    const host = createEmbeddedHost();
    expect(host.kind).toBe("embedded");
    expect(await host.connect()).toEqual({ hostVersion: expect.stringMatching(/^embedded \d+\.\d+\.\d+$/) });
    const doc = await host.currentDocument(ctx());
    expect(HostDocumentSchema.parse(doc)).toMatchObject({ id: 1, name: "Sample", width: 800, height: 600, resolution: 72, colorMode: "RGB", isDirty: false });
    expect(await host.getSelection(ctx(), undefined)).toBeNull();
  });

  it("the sample lists Label, the Product group with Subject and Shadow, and Background, top to bottom", async () => {
    const host = await connectedHost();
    const tree = await host.getLayers(ctx(), undefined);
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
    const [, product] = await host.getLayers(ctx(), undefined);
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

  it("Subject is the active layer and the first in selection-index space", async () => {
    const host = await connectedHost();
    const active = await host.getLayer(ctx(), { ref: { by: "active" } });
    expect(active?.name).toBe("Subject");
    expect((await host.getLayer(ctx(), { ref: { by: "selectionIndex", index: 0 } }))?.id).toBe(active?.id);
    expect((await host.currentDocument(ctx())).activeLayerIds).toEqual([active?.id]);
  });

  it("getLayer by each layer's index returns that layer, for every layer", async () => {
    const host = await connectedHost();
    const layers = flatten(await host.getLayers(ctx(), undefined));
    expect(layers.map((l) => l.index)).toEqual(layers.map((_, i) => i));
    for (const layer of layers) {
      const found = await host.getLayer(ctx(), { ref: { by: "index", index: layer.index } });
      expect(found?.id).toBe(layer.id);
      expect((await host.getLayer(ctx(), { ref: { by: "id", id: layer.id } }))?.index).toBe(layer.index);
    }
  });

  it("getLayer includes a group's children only when asked", async () => {
    const host = await connectedHost();
    const without = await host.getLayer(ctx(), { ref: { by: "index", index: 1 } });
    expect(without?.name).toBe("Product");
    expect(without).not.toHaveProperty("children");
    const withChildren = await host.getLayer(ctx(), { ref: { by: "index", index: 1 }, children: true });
    expect(withChildren?.children?.map((l) => l.index)).toEqual([2, 3]);
  });

  it("an unknown layer id, index or selection index is LAYER_NOT_FOUND; active with nothing active is null", async () => {
    const host = await connectedHost();
    await expect(host.getLayer(ctx(), { ref: { by: "id", id: 999 } })).rejects.toMatchObject({
      code: "LAYER_NOT_FOUND",
      details: { layerId: 999, documentId: 1 },
    });
    await expect(host.getLayer(ctx(), { ref: { by: "index", index: 5 } })).rejects.toMatchObject({ code: "LAYER_NOT_FOUND" });
    await expect(host.getLayer(ctx(), { ref: { by: "selectionIndex", index: 1 } })).rejects.toMatchObject({ code: "LAYER_NOT_FOUND" });
    await host.selectLayers!(ctx(), { ids: [] });
    expect(await host.getLayer(ctx(), { ref: { by: "active" } })).toBeNull();
  });

  it("without the sample there is no document; lost$ never fires and close is idempotent", async () => {
    const host = await connectedHost({ sample: false });
    await expect(host.currentDocument(ctx())).rejects.toMatchObject({ code: "NO_DOCUMENT" });
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
