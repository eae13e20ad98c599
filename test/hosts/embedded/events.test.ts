import { firstValueFrom, take, toArray } from "rxjs";
import type { Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import type { PreviewEvent } from "../../../src/hosts/host.js";
import type { HostLayer, HostRect } from "../../../src/protocol/index.js";
import { SAMPLE, WHITE, connectedHost, ctx, rawPixels } from "./helpers.js";

describe("embedded host: active layers, selection and their events", () => {
  it("selectLayers makes exactly these layers active, in index order, and emits layer:selectionChange", async () => {
    const host = await connectedHost();
    const events = host.events("layer:selectionChange") as Observable<HostLayer[]>;
    const next = firstValueFrom(events);
    await host.selectLayers!(ctx(), { documentId: 1, ids: [SAMPLE.background, SAMPLE.label, SAMPLE.background] });
    expect((await next).map((l) => l.name)).toEqual(["Label", "Background"]);
    expect((await host.getDocument(ctx(), undefined)).activeLayerIds).toEqual([SAMPLE.label, SAMPLE.background]);
  });

  it("a selected group is reported without children", async () => {
    const host = await connectedHost();
    const next = firstValueFrom(host.events("layer:selectionChange") as Observable<HostLayer[]>);
    await host.selectLayers!(ctx(), { documentId: 1, ids: [SAMPLE.product] });
    const [product] = await next;
    expect(product?.kind).toBe("group");
    expect(product).not.toHaveProperty("children");
  });

  it("setSelection selects a rectangle and emits selection:changed; null clears it", async () => {
    const host = await connectedHost();
    const events = host.events("selection:changed") as Observable<HostRect | null>;
    const two = firstValueFrom(events.pipe(take(2), toArray()));
    const rect = { x: 0, y: 500, width: 90, height: 100 };
    expect(await host.setSelection!(ctx(), { documentId: 1, shape: { kind: "rect", rect } })).toEqual(rect);
    expect(await host.getSelection(ctx(), undefined)).toEqual(rect);
    expect(await host.setSelection!(ctx(), { documentId: 1, shape: null })).toBeNull();
    expect(await two).toEqual([rect, null]);
  });

  it("layer:previewChange carries a PNG of the newly active layer, at most 300 px, with the layer's id, name and index", async () => {
    const host = await connectedHost();
    const next = firstValueFrom(host.events("layer:previewChange") as Observable<PreviewEvent | null>);
    await host.selectLayers!(ctx(), { documentId: 1, ids: [SAMPLE.background] });
    const preview = (await next)!;
    expect(preview).toMatchObject({
      documentId: 1,
      layer: { id: SAMPLE.background, name: "Background", index: 4 },
      image: { format: "png", width: 300, height: 225, bounds: { left: 0, top: 0, right: 800, bottom: 600 } },
    });
    const decoded = await rawPixels(preview.image.bytes);
    expect([decoded.width, decoded.height]).toEqual([300, 225]);
  });

  it("layer:previewChange of a layer smaller than 300 px is at its own size; with nothing active it is null", async () => {
    const host = await connectedHost();
    const label = firstValueFrom(host.events("layer:previewChange") as Observable<PreviewEvent | null>);
    await host.selectLayers!(ctx(), { documentId: 1, ids: [SAMPLE.label] });
    expect((await label)?.image).toMatchObject({ width: 220, height: 40 });
    const none = firstValueFrom(host.events("layer:previewChange") as Observable<PreviewEvent | null>);
    await host.selectLayers!(ctx(), { documentId: 1, ids: [] });
    expect(await none).toBeNull();
  });

  it("creating a document switches the active document and emits its (empty) selection and active layers", async () => {
    const host = await connectedHost();
    await host.setSelection!(ctx(), { documentId: 1, shape: { kind: "rect", rect: { x: 0, y: 0, width: 10, height: 10 } } });
    const selection = firstValueFrom(host.events("selection:changed")!);
    const layers = firstValueFrom(host.events("layer:selectionChange")! as Observable<HostLayer[]>);
    await host.createDocument!(ctx(), { width: 20, height: 10, name: "Untitled-1", background: WHITE });
    expect(await selection).toBeNull();
    expect((await layers).map((l) => l.name)).toEqual(["Background"]);
  });

  it("changes to a document that is not active emit nothing", async () => {
    const host = await connectedHost();
    const doc = await host.createDocument!(ctx(), { width: 20, height: 10, name: "Untitled-1", background: WHITE });
    const seen: unknown[] = [];
    const sub = host.events("selection:changed")!.subscribe((value) => seen.push(value));
    await host.setSelection!(ctx(), { documentId: 1, shape: { kind: "rect", rect: { x: 0, y: 0, width: 5, height: 5 } } });
    await host.setSelection!(ctx(), { documentId: doc.id, shape: { kind: "rect", rect: { x: 1, y: 1, width: 2, height: 2 } } });
    sub.unsubscribe();
    expect(seen).toEqual([{ x: 1, y: 1, width: 2, height: 2 }]);
  });
});
