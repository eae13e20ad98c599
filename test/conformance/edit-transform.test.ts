import sharp from "sharp";
import { describe, expect } from "vitest";
import type { HostLayer } from "../../src/protocol/index.js";
import { itFor } from "./_editors.js";
import { EDIT_MATRIX, decodeExport, editSession, expectRefused, expectResult, paintedComposite, type EditSession } from "./_edits.js";

describe.each(EDIT_MATRIX)("layer:transform over $label", ({ editor, transport: { make } }) => {
  const it = itFor(editor);
  let s: EditSession;
  const transform = async (params: Record<string, unknown>): Promise<HostLayer & { revision: number }> =>
    expectResult("layer:transform", await s.call("layer:transform", params)) as HostLayer & { revision: number };
  const exportLayer = async (layerId: number) => decodeExport(expectResult("image:exportLayer", await s.call("image:exportLayer", { layerId, format: "png" })));

  it("moves by dx, dy, turns a quarter exactly about a named anchor, and with every field left out stays put", async () => {
    s = await editSession(editor, make);
    if (!(await s.supports("layer:transform", { dx: 1 }))) return;
    const label = await s.layer("Label");
    const { revision } = await s.current();
    // Every default: no move, 100 %, no turn, no flip, about the centre, bicubic — the layer is as it was.
    const same = await transform({ layerId: label.id });
    expect(same.rect).toEqual(label.rect);
    expect(same.revision).toBe(revision! + 1);
    const moved = await transform({ layerId: label.id, dx: 10, dy: -5 });
    expect(moved.rect).toEqual({ ...label.rect, x: label.rect.x + 10, y: label.rect.y - 5 });
    const before = await exportLayer(label.id);
    const turned = await transform({ layerId: label.id, angle: 90, anchor: "topLeft" });
    // Clockwise about the top-left corner (x0, y0): (x0 + i, y0 + j) → (x0 − 1 − j, y0 + i).
    expect(turned.rect).toEqual({ x: moved.rect.x - moved.rect.height, y: moved.rect.y, width: moved.rect.height, height: moved.rect.width });
    const after = await exportLayer(label.id);
    const expected = await sharp(before.data, { raw: { width: before.width, height: before.height, channels: 4 } }).rotate(90).raw().toBuffer();
    if (editor.paints) expect(after.data.equals(expected)).toBe(true);
    expect((await s.current()).revision).toBe(revision! + 3);
  });

  it("scales about the centre by default, flips, and carries a group's layers; the composite shows it", async () => {
    s = await editSession(editor, make);
    if (!(await s.supports("layer:transform", { dx: 1 }))) return;
    const label = await s.layer("Label");
    const half = await transform({ layerId: label.id, scaleX: 50, scaleY: 50 });
    expect(Math.abs(half.rect.width - label.rect.width / 2)).toBeLessThanOrEqual(1);
    expect(Math.abs(half.rect.x + half.rect.width / 2 - (label.rect.x + label.rect.width / 2))).toBeLessThanOrEqual(1);
    expect(Math.abs(half.rect.y + half.rect.height / 2 - (label.rect.y + label.rect.height / 2))).toBeLessThanOrEqual(1);
    const subject = await s.layer("Subject");
    const before = await exportLayer(subject.id);
    const flipped = await transform({ layerId: subject.id, flip: "vertical", resample: "nearest" });
    expect(flipped.rect).toEqual(subject.rect);
    const after = await exportLayer(subject.id);
    const expected = await sharp(before.data, { raw: { width: before.width, height: before.height, channels: 4 } }).flip().raw().toBuffer();
    if (editor.paints) expect(after.data.equals(expected)).toBe(true);
    const shadow = await s.layer("Shadow");
    const product = await s.layer("Product");
    const image = await paintedComposite(s);
    expectResult("layer:transform", await s.call("layer:transform", { layerId: product.id, dx: 20 }));
    expect((await s.layer("Subject")).rect.x).toBe(subject.rect.x + 20);
    expect((await s.layer("Shadow")).rect.x).toBe(shadow.rect.x + 20);
    const moved = await paintedComposite(s);
    const [x, y] = [subject.rect.x + subject.rect.width / 2, subject.rect.y + subject.rect.height / 2];
    if (editor.paints) expect(moved.at(x + 20, y)).toEqual(image.at(x, y));
  });
});

// The refusals run after every other case: on the embedded editor, maxDocumentPixels makes an editor process of
// its own, so grouping these cases lets each setting's process be started once rather than at every alternation.
describe.each(EDIT_MATRIX)("layer:transform refusals over $label", ({ editor, transport: { name, make } }) => {
  const it = itFor(editor);
  let s: EditSession;

  it("a layer past maxDocumentPixels, a stale ifRevision, the background and an unknown layer are refused and change nothing", async () => {
    s = await editSession(editor, make, { limits: { maxDocumentPixels: 1_000_000 } });
    if (!(await s.supports("layer:transform", { dx: 1 }))) return;
    const label = await s.layer("Label");
    const { revision } = await s.current();
    // 50 times the label's size: past a million pixels on every editor's sample.
    const huge = await s.call("layer:transform", { layerId: label.id, scaleX: 5000, scaleY: 5000 });
    await expectRefused(s, huge, "PAYLOAD_TOO_LARGE", revision!);
    expect(huge.error?.details).toMatchObject({ limit: "maxDocumentPixels" });
    if (name === "http") expect(huge.status).toBe(413);
    await expectRefused(s, await s.call("layer:transform", { layerId: label.id, dx: 5, ifRevision: revision! + 1 }), "CONFLICT", revision!);
    const background = await s.layer("Background");
    await expectRefused(s, await s.call("layer:transform", { layerId: background.id, dx: 5 }), "BAD_REQUEST", revision!);
    await expectRefused(s, await s.call("layer:transform", { layerId: 9999, dx: 5 }), "LAYER_NOT_FOUND", revision!);
    await expectRefused(s, await s.call("layer:transform", { layerId: label.id, scaleX: 0 }), "BAD_REQUEST", revision!);
    expect((await s.layer("Label")).rect).toEqual(label.rect);
  });
});
