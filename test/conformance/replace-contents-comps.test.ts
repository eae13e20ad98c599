import { copyFile, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { HostLayer } from "../../src/protocol/index.js";
import { itFor } from "./_editors.js";
import { EDIT_MATRIX, editSession, expectRefused, expectResult, flatten } from "./_edits.js";

/**
 * `layer:replaceContents` and the layer comp methods on every present editor, over WebSocket and HTTP: the image
 * goes into the layer as one step, keeping its id, name and opacity, or the editor answers `NOT_SUPPORTED` naming
 * the method; an editor with comps lists Photoshop's (psd-tools' `layer_comps.psd`), applies one, and makes,
 * renames and deletes one, each a step; one without answers `NOT_SUPPORTED` naming `layer comps`.
 */
const FIXTURE = join(import.meta.dirname, "../fixtures/psd/psd-tools/layer_comps.psd");

let dir = "";
let wide = "";
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "bridge-comps-conf-")));
  await copyFile(FIXTURE, join(dir, "layer_comps.psd"));
  const png = await sharp({ create: { width: 80, height: 20, channels: 4, background: { r: 20, g: 160, b: 90, alpha: 1 } } }).png().toBuffer();
  wide = `data:image/png;base64,${png.toString("base64")}`;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.each(EDIT_MATRIX)("replace contents and layer comps over $label", ({ editor, transport: { make } }) => {
  const it = itFor(editor);

  it("layer:replaceContents puts an image into a layer as one step, keeping the layer, or answers NOT_SUPPORTED", async () => {
    const s = await editSession(editor, make);
    const made = expectResult("layer:create", await s.call("layer:create", { name: "Slot", fillColor: "#000000", to: "top" })) as HostLayer;
    expectResult("layer:update", await s.call("layer:update", { layerId: made.id, opacity: 60 }));
    const { revision } = await s.current();
    const box = { x: 10, y: 10, width: 40, height: 20 };
    if (!(await s.supports("layer:replaceContents", { layerId: made.id, image: wide, box }))) return;
    const edited = expectResult("layer:replaceContents", await s.call("layer:replaceContents", { layerId: made.id, image: wide, box })) as HostLayer & { revision: number };
    // contain (the default): 80×20 into 40×20 is 40×10, centred.
    expect(edited).toMatchObject({ id: made.id, name: "Slot", revision: revision! + 1, rect: { x: 10, y: 15, width: 40, height: 10 } });
    expect(edited.opacity).toBeCloseTo(60, 0);
    const covered = expectResult("layer:replaceContents", await s.call("layer:replaceContents", { layerId: made.id, image: wide, box, fit: "cover", alignment: "left" })) as HostLayer;
    expect(covered.rect).toEqual(box);
    // A group has no image to replace; a box on nothing is refused before any editor is asked.
    const group = expectResult("layer:create", await s.call("layer:create", { kind: "group", name: "Box" })) as HostLayer;
    const before = (await s.current()).revision!;
    await expectRefused(s, await s.call("layer:replaceContents", { layerId: group.id, image: wide }), "BAD_REQUEST", before);
    await expectRefused(s, await s.call("layer:replaceContents", { layerId: made.id, image: wide, fit: "stretch" }), "BAD_REQUEST", before);
  });

  it("layer comps of a Photoshop file list, apply, and are made, renamed and deleted as steps, or answer NOT_SUPPORTED", async () => {
    const s = await editSession(editor, make, { files: { roots: [dir] } });
    const listed = await s.call("document:layerComps");
    if (!listed.ok) {
      expect(listed.error?.code).toBe("NOT_SUPPORTED");
      expect(listed.error?.details).toMatchObject({ editor: editor.name, capability: "layer comps" });
      const refused = await s.call("layerComp:create", { name: "Any" });
      expect(refused.error?.code).toBe("NOT_SUPPORTED");
      return;
    }
    const opened = expectResult("document:open", await s.call("document:open", { path: join(dir, "layer_comps.psd") })) as { id: number };
    const comps = expectResult("document:layerComps", await s.call("document:layerComps", { documentId: opened.id })) as {
      comps: Array<{ id: number; name: string; comment: string | null }>;
      lastApplied: number | null;
    };
    expect(comps.comps.map((c) => [c.name, c.comment])).toEqual([
      ["Cheeky", "Emoticon with tongue"],
      ["Scary", "Scary emoticon"],
    ]);
    // Photoshop's DOM does not say which comp was applied last (the comp selected in its panel need not be).
    expect(comps.lastApplied).toBe(editor.name === "photoshop" ? null : comps.comps[0]!.id);
    const eye = async () => flatten(expectResult("document:layers", await s.call("document:layers", { documentId: opened.id })) as HostLayer[]).find((l) => l.id === 9)!;
    const x = (await eye()).rect.x;
    const { revision } = await s.current();
    const applied = expectResult("layerComp:apply", await s.call("layerComp:apply", { documentId: opened.id, name: "Scary" })) as { revision: number; comp: { name: string } };
    expect(applied).toMatchObject({ revision: revision! + 1, comp: { name: "Scary" } });
    expect((await eye()).rect.x).toBe(x + 9);
    const missing = await s.call("layerComp:apply", { documentId: opened.id, name: "Happy" });
    expect(missing.error?.code).toBe("NOT_FOUND");
    expect(missing.error?.details).toMatchObject({ comps: ["Cheeky", "Scary"] });
    expect((await s.call("layerComp:apply", { documentId: opened.id, id: 1, name: "Scary" })).error?.code).toBe("BAD_REQUEST");
    const created = expectResult("layerComp:create", await s.call("layerComp:create", { documentId: opened.id, name: "Wide", captures: { appearance: false } })) as {
      comp: { id: number; captures: Record<string, boolean> };
    };
    expect(created.comp.captures).toEqual({ visibility: true, position: true, appearance: false });
    expect((await s.call("layerComp:create", { documentId: opened.id, name: "Wide" })).error?.code).toBe("BAD_REQUEST");
    const renamed = expectResult("layerComp:update", await s.call("layerComp:update", { documentId: opened.id, id: created.comp.id, rename: "Story", comment: "9:16", recapture: false })) as {
      comp: { name: string; comment: string };
    };
    expect(renamed.comp).toMatchObject({ name: "Story", comment: "9:16" });
    expectResult("layerComp:delete", await s.call("layerComp:delete", { documentId: opened.id, name: "Cheeky" }));
    const after = expectResult("document:layerComps", await s.call("document:layerComps", { documentId: opened.id })) as { comps: Array<{ name: string }> };
    expect(after.comps.map((c) => c.name)).toEqual(["Scary", "Story"]);
  });
});
