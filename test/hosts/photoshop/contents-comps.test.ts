import { existsSync } from "node:fs";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import type { HostLayer } from "../../../src/protocol/index.js";
import type { FakeLayer } from "../../fakes/photoshop/layers.js";
import type { FakePhotoshop } from "../../fakes/photoshop/server.js";
import type { TestClient } from "../../helpers/ws-client.js";
import { bridgeOn, startFake } from "./_setup.js";

/*
 * layer:replaceContents and the layer comps on Photoshop, through the bridge and the fake Photoshop: each script
 * runs as ExtendScript against the DOM stub, whose rules cite the Photoshop JavaScript Reference (LayerComps,
 * LayerComp, ArtLayer.merge in dom.ts and dom-edits.ts) and the ActionManager events and reads Photoshop records
 * (placedLayerReplaceContents in action-edit.ts, smartObjectMore in action-get.ts).
 *
 * The sample: Title (text, 20,10–300,50) · Group G [A (40,60–120,140, 80 %) · B (100,80–200,180)] · Background
 * (320×240, white); Title is active, nothing is selected.
 */

type Run = FakePhotoshop["runs"][number];
type Comp = { id: number; name: string; comment: string | null; captures: { visibility: boolean; position: boolean; appearance: boolean } };
type CompList = { documentId: number; comps: Comp[]; lastApplied: number | null };

const flat = (layers: readonly FakeLayer[]): FakeLayer[] => layers.flatMap((l) => [l, ...flat(l.children ?? [])]);

async function session(options: Parameters<typeof bridgeOn>[1] = {}) {
  const fake = await startFake();
  const client: TestClient = await (await bridgeOn(fake, options)).connect();
  const doc = fake.model.docs[0]!;
  const layer = (name: string): FakeLayer => flat(doc.layers).find((l) => l.name === name)!;
  const edits = (): Run[] => fake.runs.filter((r) => r.op.startsWith("edit."));
  return {
    fake,
    client,
    doc,
    layer,
    edits,
    /** Calls an edit method and checks that it ran one edit script, one history state named after the method. */
    async edit<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>): Promise<T> {
      const before = edits().length;
      const result = await client.call<T>(method, params);
      const runs = edits().slice(before);
      expect(runs, `${method} runs one edit script`).toHaveLength(1);
      expect(runs[0]!.history, `${method} is one history state`).toEqual([method]);
      return result;
    },
    async refused(method: string, params?: Record<string, unknown>) {
      const frame = await client.send(method, params);
      expect(frame.ok, `${method} is refused`).toBe(false);
      return frame.error as { code: string; message: string; details?: Record<string, unknown> };
    },
    last: (): Run => edits().at(-1)!,
  };
}

const png = async (width: number, height: number, rgb: [number, number, number], density?: number): Promise<string> => {
  let image = sharp({ create: { width, height, channels: 4, background: { r: rgb[0], g: rgb[1], b: rgb[2], alpha: 1 } } });
  if (density !== undefined) image = image.withMetadata({ density });
  return `data:image/png;base64,${(await image.png().toBuffer()).toString("base64")}`;
};

describe("Photoshop layer:replaceContents on pixel layers", () => {
  it("empties the layer and merges the image, fitted into the layer's bounds, down into it: id, name, place, opacity and mask stay; one state; the file is removed", async () => {
    const s = await session();
    const a = s.layer("A");
    a.mask = { enabled: false, linked: true, density: 100, feather: 0, reveals: "all" };
    const out = await s.edit<HostLayer>("layer:replaceContents", { layerId: a.id, image: await png(80, 20, [200, 30, 10]) });
    // contain (the default): 80×20 into A's 80×80 is 80×20, centred.
    expect(out).toMatchObject({ id: a.id, name: "A", opacity: 80, rect: { x: 40, y: 90, width: 80, height: 20 } });
    const run = s.last();
    // The image's layer goes directly above A and is merged down into it.
    expect(run.calls).toEqual(["selection.selectAll()", "selection.clear()", "selection.deselect()", expect.stringMatching(new RegExp(`^\\d+\\.move\\(${a.id}, PLACEBEFORE\\)$`)), expect.stringMatching(/^\d+\.merge\(\)$/)]);
    expect(s.layer("A")).toMatchObject({ id: a.id, color: [200, 30, 10, 255], opacity: 80, mask: { enabled: false } });
    expect(s.doc.layers[1]!.children!.map((l) => l.name)).toEqual(["A", "B"]);
    const path = (run.params as { path: string }).path;
    expect(path).toMatch(/bridge-contents-.*\.png$/);
    expect(existsSync(path)).toBe(false);
  });

  it("cover fills a given box, cut to it, by alignment; the selection is kept; a hidden layer stays hidden", async () => {
    const s = await session();
    const b = s.layer("B");
    await s.client.call("selection:set", { rect: { x: 5, y: 5, width: 30, height: 30 } });
    await s.client.call("layer:update", { layerId: b.id, visible: false });
    const box = { x: 10, y: 20, width: 40, height: 20 };
    const out = await s.edit<HostLayer>("layer:replaceContents", { layerId: b.id, image: await png(80, 20, [0, 90, 0]), box, fit: "cover", alignment: "left" });
    expect(out).toMatchObject({ id: b.id, visible: false, rect: box });
    expect(s.last().calls).toEqual(expect.arrayContaining([`${b.id}.visible = true`, `${b.id}.visible = false`, "selection.load()"]));
    expect(await s.client.call("selection:getArea")).toEqual({ x: 5, y: 5, width: 30, height: 30 });
  });

  it("a text layer is rasterised first and becomes a pixel layer; the Background layer is NOT_SUPPORTED and a locked layer refused, before anything changes", async () => {
    const s = await session();
    const title = s.layer("Title");
    const out = await s.edit<HostLayer>("layer:replaceContents", { layerId: title.id, image: await png(10, 10, [1, 2, 3]), fit: "none" });
    expect(out).toMatchObject({ id: title.id, name: "Title", kind: "pixel", rect: { x: 155, y: 25, width: 10, height: 10 } });
    expect(s.last().calls[0]).toBe(`${title.id}.rasterize(ENTIRELAYER)`);
    const background = await s.refused("layer:replaceContents", { layerId: s.layer("Background").id, image: await png(10, 10, [1, 2, 3]) });
    expect(background).toMatchObject({ code: "NOT_SUPPORTED", details: { editor: "photoshop", capability: "layer:replaceContents", kind: "background" } });
    await s.client.call("layer:update", { layerId: s.layer("B").id, locked: true });
    const ran = s.edits().length;
    expect(await s.refused("layer:replaceContents", { layerId: s.layer("B").id, image: await png(10, 10, [1, 2, 3]) })).toMatchObject({ code: "BAD_REQUEST", details: { locked: true } });
    expect(s.edits().slice(ran).flatMap((r) => r.calls)).toEqual([]);
  });
});

describe("Photoshop layer:replaceContents: the bridge's maxDocumentPixels", () => {
  it("an image sized into a box past it is PAYLOAD_TOO_LARGE before any script runs", async () => {
    const s = await session({ limits: { maxDocumentPixels: 100_000 } });
    const image = await png(10, 10, [1, 2, 3]);
    const error = await s.refused("layer:replaceContents", { layerId: s.layer("A").id, image, box: { x: 0, y: 0, width: 400, height: 400 }, fit: "fill" });
    expect(error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { limit: "maxDocumentPixels", maxPixels: 100_000, width: 400, height: 400, what: "A" } });
    expect(s.edits()).toEqual([]);
    expect(await s.edit("layer:replaceContents", { layerId: s.layer("A").id, image, box: { x: 0, y: 0, width: 300, height: 300 }, fit: "fill" })).toMatchObject({ rect: { x: 0, y: 0, width: 300, height: 300 } });
  });
});

describe("Photoshop layer:replaceContents on smart objects", () => {
  /** A smart object of 200×100 content at 300 ppi, scaled to half and turned 90° clockwise about (150, 150). */
  function withPhoto(s: Awaited<ReturnType<typeof session>>, extra: Partial<NonNullable<FakeLayer["placed"]>> = {}): FakeLayer {
    const photo: FakeLayer = {
      id: s.fake.model.newLayerId(),
      name: "Photo",
      kind: "smartObject",
      visible: true,
      opacity: 90,
      left: 125,
      top: 100,
      right: 175,
      bottom: 200,
      color: [9, 9, 9, 255],
      placed: { width: 200, height: 100, resolution: 300, transform: [175, 100, 175, 200, 125, 200, 125, 100], file: "old.psb", ...extra },
    };
    s.doc.layers.unshift(photo);
    return photo;
  }

  it("replaces the contents through placedLayerReplaceContents with the image fitted into a canvas of the old content's size and resolution: the transform stays", async () => {
    const s = await session();
    const photo = withPhoto(s);
    const out = await s.edit<HostLayer>("layer:replaceContents", { layerId: photo.id, image: await png(100, 100, [250, 200, 0]) });
    expect(out).toMatchObject({ id: photo.id, name: "Photo", kind: "smartObject", opacity: 90, rect: { x: 125, y: 100, width: 50, height: 100 } });
    const run = s.last();
    const path = (run.params as { path: string }).path;
    expect(run.actions.map((a) => a.event)).toEqual(["select", "placedLayerReplaceContents"]);
    expect(run.actions[1]!.descriptor).toEqual({ null: { _path: path } });
    // The stub refuses content of another size or resolution: the PNG was 200×100 at 300 ppi, the image (contain)
    // in its middle, so the content's centre is the image's colour.
    expect(s.layer("Photo")).toMatchObject({ color: [250, 200, 0, 255], placed: { transform: [175, 100, 175, 200, 125, 200, 125, 100], file: path.split("/").at(-1) } });
    expect(existsSync(path)).toBe(false);
  });

  it("a warp or a perspective is NOT_SUPPORTED naming it, and no edit runs; a box is refused", async () => {
    const s = await session();
    const warped = withPhoto(s, { warp: "warpArc" });
    const ran = s.edits().length;
    expect(await s.refused("layer:replaceContents", { layerId: warped.id, image: await png(4, 4, [0, 0, 0]) })).toMatchObject({
      code: "NOT_SUPPORTED",
      details: { editor: "photoshop", capability: "layer:replaceContents", layerId: warped.id, transform: "warp" },
    });
    warped.placed!.warp = "warpNone";
    warped.placed!.nonAffineTransform = [175, 100, 175, 200, 125, 180, 125, 100];
    expect(await s.refused("layer:replaceContents", { layerId: warped.id, image: await png(4, 4, [0, 0, 0]) })).toMatchObject({ code: "NOT_SUPPORTED", details: { transform: "perspective" } });
    expect(await s.refused("layer:replaceContents", { layerId: warped.id, image: await png(4, 4, [0, 0, 0]), box: { x: 0, y: 0, width: 5, height: 5 } })).toMatchObject({ code: "BAD_REQUEST" });
    expect(s.edits().length).toBe(ran);
  });
});

describe("Photoshop layer comps", () => {
  it("lists none, creates comps (id: the place in the panel), applies one back, and refuses a taken name or an unknown comp", async () => {
    const s = await session();
    expect(await s.client.call<CompList>("document:layerComps")).toEqual({ documentId: s.doc.id, comps: [], lastApplied: null });
    const square = await s.edit<{ revision: number; comp: Comp }>("layerComp:create", { name: "Square", comment: "1:1" });
    expect(square).toMatchObject({ revision: 1, comp: { id: 1, name: "Square", comment: "1:1", captures: { visibility: true, position: true, appearance: true } } });
    expect(s.last().calls).toEqual(['layerComps.add("Square")']);
    // Someone hides A and moves B in Photoshop; the comp brings both back.
    const [a, b] = [s.layer("A"), s.layer("B")];
    a.visible = false;
    Object.assign(b, { left: 110, right: 210 });
    const applied = await s.edit<{ comp: Comp }>("layerComp:apply", { name: "Square" });
    expect(applied.comp).toMatchObject({ id: 1, name: "Square" });
    expect(s.last().calls).toEqual(['comp "Square".apply()']);
    expect([a.visible, b.left, b.right]).toEqual([true, 100, 200]);

    const story = await s.edit<{ comp: Comp }>("layerComp:create", { name: "Story", captures: { position: false, appearance: false } });
    expect(story.comp).toMatchObject({ id: 2, comment: null, captures: { visibility: true, position: false, appearance: false } });
    // Story records visibility only: A is shown again, B stays where it was moved.
    a.visible = false;
    Object.assign(b, { left: 110, right: 210 });
    await s.edit("layerComp:apply", { id: 2 });
    expect([a.visible, b.left]).toEqual([true, 110]);

    expect(await s.refused("layerComp:create", { name: "Square" })).toMatchObject({ code: "BAD_REQUEST", details: { name: "Square", id: 1 } });
    expect(await s.refused("layerComp:apply", { name: "Wide" })).toMatchObject({ code: "NOT_FOUND", details: { comps: ["Square", "Story"] } });
    expect(await s.refused("layerComp:delete", { id: 3 })).toMatchObject({ code: "NOT_FOUND" });
    // Each comp edit is a step of the History panel: undoing the last apply and the second comp leaves "Square".
    await s.client.call("history:undo", { steps: 2 });
    expect((await s.client.call<CompList>("document:layerComps")).comps.map((c) => c.name)).toEqual(["Square"]);
  });

  it("updates a comp's name, comment and captures, recapturing unless told not to; deletes one (the later ones move up); lastApplied is unknown", async () => {
    const s = await session();
    await s.client.call("layerComp:create", { name: "One" });
    await s.client.call("layerComp:create", { name: "Two", comment: "second" });
    const renamed = await s.edit<{ comp: Comp }>("layerComp:update", { name: "Two", rename: "Story", comment: null, captures: { appearance: false }, recapture: false });
    expect(renamed.comp).toEqual({ id: 2, name: "Story", comment: null, captures: { visibility: true, position: true, appearance: false } });
    expect(s.last().calls).toEqual(['comp.name = "Story"', 'comp "Story".comment = ""', 'comp "Story".visibility = true', 'comp "Story".position = true', 'comp "Story".appearance = false']);
    s.layer("A").visible = false;
    await s.edit("layerComp:update", { id: 1 });
    expect(s.last().calls.at(-1)).toBe('comp "One".recapture()');
    expect(s.doc.comps![0]!.states[s.layer("A").id]).toMatchObject({ visible: false });
    expect(await s.refused("layerComp:update", { id: 1, rename: "Story" })).toMatchObject({ code: "BAD_REQUEST" });

    await s.client.call("layerComp:apply", { name: "Story" });
    expect(await s.edit("layerComp:delete", { name: "One" })).toMatchObject({ id: 1, deleted: true });
    // Photoshop's DOM does not say which comp was applied last.
    expect(await s.client.call<CompList>("document:layerComps")).toMatchObject({ comps: [{ id: 1, name: "Story" }], lastApplied: null });
  });
});
