import { describe, expect, it } from "vitest";
import { WHITE, connectedHost, ctx, exportDocument, pixelAt, rawPixels } from "./helpers.js";

describe("embedded host: documents", () => {
  it("createDocument adds an active document with the name given and an opaque Background of the colour given", async () => {
    const host = await connectedHost();
    const doc = await host.createDocument!(ctx(), { width: 64, height: 32, name: "Banner", background: WHITE });
    expect(doc).toMatchObject({ id: 2, name: "Banner", width: 64, height: 32, resolution: 72, isDirty: false });
    expect((await host.getDocument(ctx(), undefined)).id).toBe(2);
    const { layers } = await host.getDocumentTree(ctx(), undefined);
    expect(layers.map((l) => [l.name, l.kind])).toEqual([["Background", "background"]]);
    expect(doc.activeLayerIds).toEqual([layers[0]!.id]);
    const image = await rawPixels((await exportDocument(host)).bytes);
    expect(pixelAt(image, 10, 10)).toEqual([255, 255, 255, 255]);
  });

  it("a transparent background gives one empty Layer 1; a colour fills the Background", async () => {
    const host = await connectedHost({ sample: false });
    const clear = await host.createDocument!(ctx(), { width: 10, height: 10, name: "Clear", background: [0, 0, 0, 0] });
    expect((await host.getDocumentTree(ctx(), clear.id)).layers.map((l) => [l.name, l.kind, l.rect])).toEqual([
      ["Layer 1", "pixel", { x: 0, y: 0, width: 0, height: 0 }],
    ]);
    await host.createDocument!(ctx(), { width: 10, height: 10, name: "Orange", background: [255, 128, 0, 255] });
    const image = await rawPixels((await exportDocument(host)).bytes);
    expect(pixelAt(image, 0, 0)).toEqual([255, 128, 0, 255]);
  });

  it("a translucent background fills Layer 1 with the colour", async () => {
    const host = await connectedHost({ sample: false });
    await host.createDocument!(ctx(), { width: 4, height: 4, name: "Tint", background: [0, 0, 255, 128] });
    expect((await host.getDocumentTree(ctx(), undefined)).layers.map((l) => [l.name, l.kind, l.rect.width])).toEqual([["Layer 1", "pixel", 4]]);
    expect(pixelAt(await rawPixels((await exportDocument(host)).bytes), 1, 1)).toEqual([0, 0, 255, 128]);
  });

  it("getDocumentTree answers the document and its layer tree in one call", async () => {
    const host = await connectedHost();
    const tree = await host.getDocumentTree(ctx(), 1);
    expect(tree.document).toEqual(await host.getDocument(ctx(), 1));
    expect(tree.layers.map((l) => l.name)).toEqual(["Label", "Product", "Background"]);
    expect(tree.layers[1]!.children?.map((l) => l.name)).toEqual(["Subject", "Shadow"]);
  });

  it("listDocuments shows every open document; closing the active one falls back to the most recent", async () => {
    const host = await connectedHost();
    await host.createDocument!(ctx(), { width: 10, height: 10, name: "A", background: WHITE });
    await host.createDocument!(ctx(), { width: 10, height: 10, name: "B", background: WHITE });
    expect((await host.listDocuments(ctx())).map((d) => [d.id, d.name])).toEqual([
      [1, "Sample"],
      [2, "A"],
      [3, "B"],
    ]);
    await host.closeDocument!(ctx(), 3);
    expect((await host.getDocument(ctx(), undefined)).name).toBe("A");
    await host.closeDocument!(ctx(), 1);
    expect((await host.getDocument(ctx(), undefined)).name).toBe("A");
    expect((await host.listDocuments(ctx())).map((d) => d.id)).toEqual([2]);
  });

  it("document ids are never reused", async () => {
    const host = await connectedHost();
    await host.closeDocument!(ctx(), 1);
    const doc = await host.createDocument!(ctx(), { width: 10, height: 10, name: "Untitled-1", background: WHITE });
    expect(doc.id).toBe(2);
  });

  it("after closing every document calls fail with NO_DOCUMENT; unknown ids with DOCUMENT_NOT_FOUND", async () => {
    const host = await connectedHost();
    const size = { width: 10, height: 10 };
    await expect(host.getDocument(ctx(), 7)).rejects.toMatchObject({ code: "DOCUMENT_NOT_FOUND", details: { documentId: 7 } });
    await expect(host.closeDocument!(ctx(), 7)).rejects.toMatchObject({ code: "DOCUMENT_NOT_FOUND" });
    await host.closeDocument!(ctx(), 1);
    await expect(host.getDocument(ctx(), undefined)).rejects.toMatchObject({ code: "NO_DOCUMENT" });
    await expect(host.getDocumentTree(ctx(), undefined)).rejects.toMatchObject({ code: "NO_DOCUMENT" });
    await expect(host.exportDocumentImage(ctx(), { documentId: undefined, format: "png", size })).rejects.toMatchObject({ code: "NO_DOCUMENT" });
    await expect(host.getDocument(ctx(), 1)).rejects.toMatchObject({ code: "DOCUMENT_NOT_FOUND" });
  });
});
