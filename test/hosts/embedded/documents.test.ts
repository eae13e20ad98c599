import { describe, expect, it } from "vitest";
import { connectedHost, ctx, pixelAt, rawPixels } from "./helpers.js";

describe("embedded host: documents", () => {
  it("createDocument adds an active document with a white Background by default", async () => {
    const host = await connectedHost();
    const doc = await host.createDocument!(ctx(), { width: 64, height: 32, name: "Banner" });
    expect(doc).toMatchObject({ id: 2, name: "Banner", width: 64, height: 32, resolution: 72, isDirty: false });
    expect((await host.currentDocument(ctx())).id).toBe(2);
    const layers = await host.getLayers(ctx(), undefined);
    expect(layers.map((l) => [l.name, l.kind])).toEqual([["Background", "background"]]);
    expect(doc.activeLayerIds).toEqual([layers[0]!.id]);
    const image = await rawPixels((await host.exportDocumentImage(ctx(), { format: "png" })).bytes);
    expect(pixelAt(image, 10, 10)).toEqual([255, 255, 255, 255]);
  });

  it("a transparent background gives one empty Layer 1; a colour fills the Background", async () => {
    const host = await connectedHost({ sample: false });
    const clear = await host.createDocument!(ctx(), { width: 10, height: 10, background: "transparent" });
    expect((await host.getLayers(ctx(), clear.id)).map((l) => [l.name, l.kind, l.rect])).toEqual([
      ["Layer 1", "pixel", { x: 0, y: 0, width: 0, height: 0 }],
    ]);
    await host.createDocument!(ctx(), { width: 10, height: 10, background: "#ff8000" });
    const image = await rawPixels((await host.exportDocumentImage(ctx(), { format: "png" })).bytes);
    expect(pixelAt(image, 0, 0)).toEqual([255, 128, 0, 255]);
    await expect(host.createDocument!(ctx(), { width: 10, height: 10, background: "plaid" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("createDocument refuses sizes above maxDocumentPixels with PAYLOAD_TOO_LARGE", async () => {
    const host = await connectedHost({ sample: false, maxDocumentPixels: 10_000 });
    await expect(host.createDocument!(ctx(), { width: 101, height: 100 })).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    await expect(host.createDocument!(ctx(), { width: 0, height: 100 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("listDocuments shows every open document; closing the active one falls back to the most recent", async () => {
    const host = await connectedHost();
    await host.createDocument!(ctx(), { width: 10, height: 10, name: "A" });
    await host.createDocument!(ctx(), { width: 10, height: 10, name: "B" });
    expect((await host.listDocuments(ctx())).map((d) => [d.id, d.name])).toEqual([
      [1, "Sample"],
      [2, "A"],
      [3, "B"],
    ]);
    expect(await host.closeDocument!(ctx(), undefined)).toBe(3);
    expect((await host.currentDocument(ctx())).name).toBe("A");
    expect(await host.closeDocument!(ctx(), 1)).toBe(1);
    expect((await host.currentDocument(ctx())).name).toBe("A");
    expect((await host.listDocuments(ctx())).map((d) => d.id)).toEqual([2]);
  });

  it("document ids are never reused", async () => {
    const host = await connectedHost();
    await host.closeDocument!(ctx(), 1);
    const doc = await host.createDocument!(ctx(), { width: 10, height: 10 });
    expect(doc.id).toBe(2);
  });

  it("after closing every document calls fail with NO_DOCUMENT; unknown ids with DOCUMENT_NOT_FOUND", async () => {
    const host = await connectedHost();
    await expect(host.getDocument(ctx(), 7)).rejects.toMatchObject({ code: "DOCUMENT_NOT_FOUND", details: { documentId: 7 } });
    await expect(host.closeDocument!(ctx(), 7)).rejects.toMatchObject({ code: "DOCUMENT_NOT_FOUND" });
    await host.closeDocument!(ctx(), undefined);
    await expect(host.currentDocument(ctx())).rejects.toMatchObject({ code: "NO_DOCUMENT" });
    await expect(host.getDocument(ctx(), undefined)).rejects.toMatchObject({ code: "NO_DOCUMENT" });
    await expect(host.getLayers(ctx(), undefined)).rejects.toMatchObject({ code: "NO_DOCUMENT" });
    await expect(host.exportDocumentImage(ctx(), { format: "png" })).rejects.toMatchObject({ code: "NO_DOCUMENT" });
    await expect(host.getDocument(ctx(), 1)).rejects.toMatchObject({ code: "DOCUMENT_NOT_FOUND" });
  });
});
