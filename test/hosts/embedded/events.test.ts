import { firstValueFrom, take, toArray } from "rxjs";
import type { Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import type { HostLayer, HostRect, LayerPreviewPayload } from "../../../src/protocol/index.js";
import { LayerPreviewPayloadSchema } from "../../../src/protocol/index.js";
import { connectedHost, ctx, rawPixels } from "./helpers.js";

describe("embedded host: selection and events", () => {
  it("selectLayers makes the layers active, returns them in index order and emits layer:selectionChange", async () => {
    const host = await connectedHost();
    const events = host.events("layer:selectionChange") as Observable<HostLayer[]>;
    const next = firstValueFrom(events);
    const selected = await host.selectLayers!(ctx(), { ids: [1, 5] });
    expect(selected.map((l) => l.name)).toEqual(["Label", "Background"]);
    expect((await next).map((l) => l.id)).toEqual([5, 1]);
    expect((await host.currentDocument(ctx())).activeLayerIds).toEqual([5, 1]);
    expect((await host.getLayer(ctx(), { ref: { by: "selectionIndex", index: 1 } }))?.name).toBe("Background");
  });

  it("selecting a group reports it without children", async () => {
    const host = await connectedHost();
    const [product] = await host.selectLayers!(ctx(), { ids: [4] });
    expect(product?.kind).toBe("group");
    expect(product).not.toHaveProperty("children");
  });

  it("selectLayers with an unknown id fails with LAYER_NOT_FOUND and changes nothing", async () => {
    const host = await connectedHost();
    const before = (await host.currentDocument(ctx())).activeLayerIds;
    await expect(host.selectLayers!(ctx(), { ids: [1, 42] })).rejects.toMatchObject({ code: "LAYER_NOT_FOUND", details: { layerId: 42 } });
    expect((await host.currentDocument(ctx())).activeLayerIds).toEqual(before);
  });

  it("setSelection clips to the canvas and emits selection:changed; an outside rect clears it", async () => {
    const host = await connectedHost();
    const events = host.events("selection:changed") as Observable<HostRect | null>;
    const two = firstValueFrom(events.pipe(take(2), toArray()));
    expect(await host.setSelection!(ctx(), { rect: { x: -10, y: 500, width: 100, height: 200 } })).toEqual({ x: 0, y: 500, width: 90, height: 100 });
    expect(await host.getSelection(ctx(), undefined)).toEqual({ x: 0, y: 500, width: 90, height: 100 });
    expect(await host.setSelection!(ctx(), { rect: { x: 900, y: 0, width: 10, height: 10 } })).toBeNull();
    expect(await two).toEqual([{ x: 0, y: 500, width: 90, height: 100 }, null]);
  });

  it("layer:previewChange carries a PNG preview of the newly active layer, at most 300 px", async () => {
    const host = await connectedHost();
    const events = host.events("layer:previewChange") as Observable<LayerPreviewPayload>;
    const next = firstValueFrom(events);
    await host.selectLayers!(ctx(), { ids: [1] });
    const preview = LayerPreviewPayloadSchema.parse(await next);
    expect(preview).toMatchObject({ documentId: 1, id: 1, name: "Background", index: 4, width: 300, height: 225 });
    const decoded = await rawPixels(Buffer.from(preview!.data.split(",")[1]!, "base64"));
    expect([decoded.width, decoded.height]).toEqual([300, 225]);
  });

  it("layerPreview returns the active layer at the requested size, or null when nothing is active", async () => {
    const host = await connectedHost();
    const preview = await host.layerPreview(ctx(), { maxSize: 64 });
    expect(preview).toMatchObject({ name: "Subject", index: 2 });
    expect(Math.max(preview!.width, preview!.height)).toBe(64);
    await host.selectLayers!(ctx(), { ids: [] });
    expect(await host.layerPreview(ctx(), { maxSize: 64 })).toBeNull();
  });

  it("creating a document switches the active document and emits its (empty) selection and active layers", async () => {
    const host = await connectedHost();
    await host.setSelection!(ctx(), { rect: { x: 0, y: 0, width: 10, height: 10 } });
    const selection = firstValueFrom(host.events("selection:changed")!);
    const layers = firstValueFrom(host.events("layer:selectionChange")! as Observable<HostLayer[]>);
    await host.createDocument!(ctx(), { width: 20, height: 10 });
    expect(await selection).toBeNull();
    expect((await layers).map((l) => l.name)).toEqual(["Background"]);
  });

  it("changes to a document that is not active emit nothing", async () => {
    const host = await connectedHost();
    await host.createDocument!(ctx(), { width: 20, height: 10 });
    const seen: unknown[] = [];
    const sub = host.events("selection:changed")!.subscribe((value) => seen.push(value));
    await host.setSelection!(ctx(), { documentId: 1, rect: { x: 0, y: 0, width: 5, height: 5 } });
    await host.setSelection!(ctx(), { rect: { x: 1, y: 1, width: 2, height: 2 } });
    sub.unsubscribe();
    expect(seen).toEqual([{ x: 1, y: 1, width: 2, height: 2 }]);
  });
});
