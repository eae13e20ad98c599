import { describe, expect } from "vitest";
import type { HostRect } from "../../src/protocol/index.js";
import { itFor } from "./_editors.js";
import { EDIT_MATRIX, editSession, expectRefused, expectResult, exportComposite, paintedComposite, type EditSession } from "./_edits.js";

/** The whole canvas of a document. */
const canvasOf = ({ width, height }: { width: number; height: number }): HostRect => ({ x: 0, y: 0, width, height });
const hex = (rgba: readonly number[]): string => `#${rgba.slice(0, 3).map((c) => c.toString(16).padStart(2, "0")).join("")}`;

describe.each(EDIT_MATRIX)("selection edits over $label", ({ editor, transport: { make } }) => {
  const it = itFor(editor);
  let s: EditSession;
  type Edited = { documentId: number; revision: number; bounds: HostRect | null };
  const edit = async (method: Parameters<EditSession["call"]>[0], params?: Record<string, unknown>): Promise<Edited> => {
    const edited = expectResult(method, await s.call(method, params)) as Edited;
    // What the edit answers is what the selection reads back.
    expect(expectResult("selection:getArea", await s.call("selection:getArea"))).toEqual(edited.bounds);
    return edited;
  };
  const select = async (rect: HostRect): Promise<void> => {
    expectResult("selection:set", await s.call("selection:set", { rect }));
  };

  it("selection:all, selection:clear and selection:invert", async () => {
    s = await editSession(editor, make);
    const CANVAS = canvasOf(await s.current());
    if (await s.supports("selection:all")) {
      const { revision } = await s.current();
      const all = await edit("selection:all");
      expect(all).toMatchObject({ bounds: CANVAS, revision: revision! + 1 });
    }
    if (await s.supports("selection:clear")) expect((await edit("selection:clear")).bounds).toBeNull();
    if (await s.supports("selection:invert")) {
      // Nothing selected inverts to everything; a rectangle to everything around it.
      expect((await edit("selection:invert")).bounds).toEqual(CANVAS);
      await select({ x: 0, y: 0, width: CANVAS.width, height: 100 });
      expect((await edit("selection:invert")).bounds).toEqual({ x: 0, y: 100, width: CANVAS.width, height: CANVAS.height - 100 });
    }
  });

  it("selection:modify grows, shrinks, softens, rounds and borders the selection; nothing selected is BAD_REQUEST", async () => {
    s = await editSession(editor, make);
    if (!(await s.supports("selection:modify", { expand: 1 }))) return;
    const rect = { x: 100, y: 100, width: 50, height: 40 };
    await select(rect);
    expect((await edit("selection:modify", { expand: 5 })).bounds).toEqual({ x: 95, y: 95, width: 60, height: 50 });
    await select(rect);
    expect((await edit("selection:modify", { contract: 5 })).bounds).toEqual({ x: 105, y: 105, width: 40, height: 30 });
    await select(rect);
    expect((await edit("selection:modify", { border: 4 })).bounds).toEqual({ x: 98, y: 98, width: 54, height: 44 });
    await select(rect);
    expect((await edit("selection:modify", { smooth: 3 })).bounds).toEqual(rect);
    await select(rect);
    const feathered = (await edit("selection:modify", { feather: 2.5 })).bounds!;
    expect(feathered.x).toBeLessThan(100);
    expect(feathered.x + feathered.width).toBeGreaterThan(150);
    expectResult("selection:set", await s.call("selection:set", { rect: null }));
    const { revision } = await s.current();
    await expectRefused(s, await s.call("selection:modify", { expand: 2 }), "BAD_REQUEST", revision!);
    await expectRefused(s, await s.call("selection:modify", { expand: 2, contract: 2 }), "BAD_REQUEST", revision!);
  });

  it("selection:fromLayer and selection:fromColor select pixels, combined by mode (replace by default)", async () => {
    s = await editSession(editor, make);
    const CANVAS = canvasOf(await s.current());
    const fromLayer = await s.supports("selection:fromLayer", {});
    const fromColor = await s.supports("selection:fromColor", { color: "#ffffff", tolerance: 0 });
    if (!fromLayer && !fromColor) return;
    const label = await s.layer("Label");
    const subject = await s.layer("Subject");
    if (fromLayer) {
      expect((await edit("selection:fromLayer", { layerId: label.id })).bounds).toEqual(label.rect);
      const both = (await edit("selection:fromLayer", { layerId: subject.id, mode: "add" })).bounds!;
      // The box around both.
      const [left, top] = [Math.min(label.rect.x, subject.rect.x), Math.min(label.rect.y, subject.rect.y)];
      expect(both).toEqual({
        x: left,
        y: top,
        width: Math.max(label.rect.x + label.rect.width, subject.rect.x + subject.rect.width) - left,
        height: Math.max(label.rect.y + label.rect.height, subject.rect.y + subject.rect.height) - top,
      });
      // Hard-edged rectangles through the label's opaque middle (its corners are rounded and soft).
      await select({ x: label.rect.x + 20, y: 0, width: 50, height: CANVAS.height });
      expect((await edit("selection:fromLayer", { layerId: label.id, mode: "intersect" })).bounds).toEqual({ ...label.rect, x: label.rect.x + 20, width: 50 });
      await select({ x: label.rect.x + 20, y: label.rect.y + 5, width: 50, height: 10 });
      expect((await edit("selection:fromLayer", { layerId: label.id, mode: "subtract" })).bounds).toBeNull();
    }
    if (fromColor) {
      // The label's colour as the editor shows it (the embedded sample's is #2563eb).
      const labelColor = (await exportComposite(s)).at(label.rect.x + Math.floor(label.rect.width / 2), label.rect.y + Math.floor(label.rect.height / 2));
      // A colour everywhere (not contiguous by default), sampled from the layer.
      if (await s.honours("selection:fromColor", "color", { layerId: label.id, color: hex(labelColor), tolerance: 16 })) {
        const inLabel = (await edit("selection:fromColor", { layerId: label.id, color: hex(labelColor), tolerance: 16 })).bounds!;
        expect(inLabel.x).toBeGreaterThanOrEqual(label.rect.x);
        expect(inLabel.x + inLabel.width).toBeLessThanOrEqual(label.rect.x + label.rect.width);
        expect(inLabel.width).toBeGreaterThan(label.rect.width - 4);
      }
      // From a point (contiguous by default) on the whole image: the grey around everything.
      expect((await edit("selection:fromColor", { point: { x: 5, y: CANVAS.height / 2 }, tolerance: 0, sampleMerged: true })).bounds).toEqual(CANVAS);
      // The active layer (Subject) sampled at a point outside it: its transparent pixels, everywhere but the circle.
      expect((await edit("selection:fromColor", { point: { x: 5, y: 5 }, tolerance: 0, mode: "intersect" })).bounds).toEqual(CANVAS);
      if (!(await s.honours("selection:fromColor", "color", { color: hex(labelColor), tolerance: 16, sampleMerged: true }))) return;
      await edit("selection:fromColor", { color: hex(labelColor), tolerance: 16, sampleMerged: true });
      if ((await s.supports("document:crop", { rect: { x: 0, y: 0, width: 1, height: 1 } })) === true) {
        expectResult("document:crop", await s.call("document:crop"));
        const image = await paintedComposite(s);
        if (editor.paints) expect(image.at(Math.floor(image.width / 2), Math.floor(image.height / 2))).toEqual(labelColor);
      }
    }
  });

  it("bad points, unknown layers and a stale ifRevision are refused by name and change nothing", async () => {
    s = await editSession(editor, make);
    if (!(await s.supports("selection:fromColor", { color: "#ffffff", tolerance: 0 }))) return;
    const { revision } = await s.current();
    await expectRefused(s, await s.call("selection:fromColor", { point: { x: 900, y: 5 }, tolerance: 0 }), "BAD_REQUEST", revision!);
    await expectRefused(s, await s.call("selection:fromColor", { point: { x: 5, y: 5 }, tolerance: 256 }), "BAD_REQUEST", revision!);
    await expectRefused(s, await s.call("selection:fromColor", { point: { x: 5, y: 5 }, tolerance: 0, layerId: 9999 }), "LAYER_NOT_FOUND", revision!);
    await expectRefused(s, await s.call("selection:fromColor", { point: { x: 5, y: 5 }, tolerance: 0, ifRevision: revision! + 1 }), "CONFLICT", revision!);
    expect(expectResult("selection:getArea", await s.call("selection:getArea"))).toBeNull();
  });
});
