/**
 * Photoshop's text edits as the DOM sees them: the script run straight against the stub (which models the
 * Photoshop JavaScript Reference's ArtLayer.kind, TextItem and Application.fonts) and the DOM calls it made, in
 * order, inside one history state.
 */
import { describe, expect, it } from "vitest";
import { buildScript } from "../../../src/hosts/photoshop/operations.js";
import type { TextSpec } from "../../../src/hosts/edits.js";
import { runExtendScript } from "../../fakes/photoshop/extendscript/run.js";
import { FakeModel } from "../../fakes/photoshop/model.js";

const SPEC: TextSpec = { text: "Summer\nsale", font: "DejaVuSans-Bold", size: 24, color: [192, 0, 0, 255], position: { x: 20, y: 40 }, alignment: "center", tracking: 50, antiAlias: "smooth" };

function run(model: FakeModel, edit: Record<string, unknown>, history: string) {
  const out = runExtendScript(model, buildScript("edit.layer", { documentId: model.docs[0]!.id, edit, history }));
  const envelope = JSON.parse(out.text) as { ok: boolean; result: { layerId?: number }; error?: unknown };
  expect(envelope.ok, JSON.stringify(envelope.error)).toBe(true);
  return { ...out, result: envelope.result };
}

describe("text layers through the DOM", () => {
  it("layer:create {kind: text}: a new art layer made a text layer, its TextItem set as the reference gives, one history state", () => {
    const model = FakeModel.withSample(() => {});
    const made = run(model, { op: "layer:create", kind: "text", name: "Summer", text: SPEC, place: { to: "top" } }, "layer:create");
    const id = made.result.layerId!;
    expect(made.calls).toEqual([
      "artLayers.add()",
      `${id}.kind = LayerKind.TEXT`,
      `${id}.textItem.kind = TextType.POINTTEXT`,
      `${id}.textItem.contents = "Summer\\rsale"`,
      `${id}.textItem.font = "DejaVuSans-Bold"`,
      `${id}.textItem.size = 24 pt`,
      `${id}.textItem.color = #c00000`,
      `${id}.textItem.justification = Justification.CENTER`,
      `${id}.textItem.useAutoLeading = true`,
      `${id}.textItem.tracking = 50`,
      `${id}.textItem.antiAliasMethod = AntiAlias.SMOOTH`,
      `${id}.textItem.position = [20, 40] px`,
      `${id}.name = "Summer"`,
    ]);
    expect(made.history).toEqual(["layer:create"]);
    const read = JSON.parse(runExtendScript(model, buildScript("layer.get", { documentId: model.docs[0]!.id, layerId: id })).text) as { result: { text: unknown } };
    expect(read.result.text).toEqual({
      text: "Summer\nsale", font: "DejaVuSans-Bold", size: 24, color: "#c00000", alignment: "center", tracking: 50, antiAlias: "smooth", direction: "ltr", position: { x: 20, y: 40 },
    });
  });

  it("layer:updateText: a paragraph box with its width and height, a set leading, no antialiasing", () => {
    const model = FakeModel.withSample(() => {});
    const id = run(model, { op: "layer:create", kind: "text", name: "T", text: SPEC, place: { to: "top" } }, "layer:create").result.layerId!;
    const box = { x: 10, y: 12, width: 200, height: 80 };
    const spec: TextSpec = { ...SPEC, position: undefined, box, leading: 30, antiAlias: "none", alignment: "justify" };
    const changed = run(model, { op: "layer:updateText", layerId: id, text: spec }, "layer:updateText");
    expect(changed.calls).toEqual([
      `${id}.textItem.kind = TextType.PARAGRAPHTEXT`,
      `${id}.textItem.contents = "Summer\\rsale"`,
      `${id}.textItem.font = "DejaVuSans-Bold"`,
      `${id}.textItem.size = 24 pt`,
      `${id}.textItem.color = #c00000`,
      `${id}.textItem.justification = Justification.LEFTJUSTIFIED`,
      `${id}.textItem.useAutoLeading = false`,
      `${id}.textItem.leading = 30 pt`,
      `${id}.textItem.tracking = 50`,
      `${id}.textItem.antiAliasMethod = AntiAlias.NONE`,
      `${id}.textItem.position = [10, 12] px`,
      `${id}.textItem.width = 200 px`,
      `${id}.textItem.height = 80 px`,
    ]);
    expect(changed.history).toEqual(["layer:updateText"]);
  });

  it("layer:updateText: an anti-aliasing method by name and a baseline shift, read back as set", () => {
    const model = FakeModel.withSample(() => {});
    const id = run(model, { op: "layer:create", kind: "text", name: "T", text: SPEC, place: { to: "top" } }, "layer:create").result.layerId!;
    const changed = run(model, { op: "layer:updateText", layerId: id, text: { ...SPEC, antiAlias: "crisp", baselineShift: -3 } }, "layer:updateText");
    expect(changed.calls).toContain(`${id}.textItem.baselineShift = -3 pt`);
    expect(changed.calls).toContain(`${id}.textItem.antiAliasMethod = AntiAlias.CRISP`);
    const read = JSON.parse(runExtendScript(model, buildScript("layer.get", { documentId: model.docs[0]!.id, layerId: id })).text) as { result: { text: unknown } };
    expect(read.result.text).toMatchObject({ antiAlias: "crisp", baselineShift: -3 });
  });

  it("font.list answers Application.fonts' family, style and PostScript name", () => {
    const out = JSON.parse(runExtendScript(new FakeModel(() => {}), buildScript("font.list", {})).text) as { result: { fonts: unknown[] } };
    expect(out.result.fonts).toContainEqual({ family: "DejaVu Sans", style: "Bold", postScriptName: "DejaVuSans-Bold" });
  });
});
