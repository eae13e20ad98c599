/**
 * Text layers drawn by the embedded editor's own engine (one editor and a pool), over WebSocket and HTTP:
 * `layer:create {kind: "text"}`, `layer:updateText` and `font:list`, where the bounds, the ink and the wrapping are
 * the engine's. GIMP and Photoshop draw text with their own engines: their rows are in `text-editors.test.ts`. An
 * editor without text answers `NOT_SUPPORTED {editor, capability: "text"}` to all three; the case checks that and
 * stops. Cases use DejaVu Sans (Debian's `fonts-dejavu-core`), and say so when it is absent.
 */
import { describe, expect } from "vitest";
import type { FontInfo, HostLayer } from "../../src/protocol/index.js";
import { itFor } from "./_editors.js";
import { EDIT_MATRIX, editSession, expectResult, exportComposite, type EditSession } from "./_edits.js";

const FONT = "DejaVu Sans";

describe.each(EDIT_MATRIX.filter(({ editor }) => editor.name === "embedded"))("text layers over $label", ({ editor, transport: { make } }) => {
  const it = itFor(editor);
  let s: EditSession;
  /** The editor's fonts, or undefined (checked `NOT_SUPPORTED`) for an editor without text. */
  const setup = async (): Promise<FontInfo[] | undefined> => {
    s = await editSession(editor, make);
    const listed = await s.call("font:list");
    if (listed.ok) return (expectResult("font:list", listed) as { fonts: FontInfo[] }).fonts;
    expect(listed.error).toMatchObject({ code: "NOT_SUPPORTED", details: { editor: editor.name, capability: "text" } });
    const create = await s.call("layer:create", { kind: "text", text: "Hi", font: FONT, size: 12 });
    expect(create.error).toMatchObject({ code: "NOT_SUPPORTED", details: { editor: editor.name, capability: "text" } });
    return undefined;
  };
  const hasDejaVu = (fonts: readonly FontInfo[]): boolean => {
    if (fonts.some((f) => f.family === FONT)) return true;
    console.warn(`text conformance on ${editor.label}: ${FONT} is not installed (Debian: fonts-dejavu-core); case skipped`);
    return false;
  };
  const text = (outcome: Parameters<typeof expectResult>[1], method: "layer:create" | "layer:updateText") => expectResult(method, outcome) as HostLayer & { revision: number };

  it("layer:create {kind: text} answers the layer with its bounds; layer:updateText changes it, each one history step", async () => {
    const fonts = await setup();
    if (fonts === undefined || !hasDejaVu(fonts)) return;
    const before = await s.current();
    const made = text(await s.call("layer:create", { kind: "text", text: "Sale", font: FONT, size: 40, color: "#ff0000", position: { x: 50, y: 100 } }), "layer:create");
    expect(made).toMatchObject({ kind: "text", name: "Sale", revision: before.revision + 1 });
    expect(made.text).toMatchObject({ text: "Sale", size: 40, color: "#ff0000", position: { x: 50, y: 100 }, alignment: "left", antiAlias: "smooth" });
    expect(made.text?.font).toMatch(/^DejaVuSans$/);
    // The ink sits on the baseline at y 100, starting near x 50 (a 40 pt capital at 72 ppi is about 29 px tall).
    expect(made.bounds.left).toBeGreaterThanOrEqual(48);
    expect(made.bounds.left).toBeLessThan(60);
    expect(made.bounds.bottom).toBeGreaterThanOrEqual(100);
    expect(made.bounds.bottom).toBeLessThanOrEqual(103);
    expect(made.rect.height).toBeGreaterThan(25);
    const image = await exportComposite(s);
    const red = Array.from({ length: made.rect.width }, (_, i) => image.at(made.bounds.left + i, made.bounds.top + Math.floor(made.rect.height / 2))).filter(
      ([r, g, b]) => r! > 200 && g! < 60 && b! < 60,
    );
    expect(red.length).toBeGreaterThan(5);

    const longer = text(await s.call("layer:updateText", { layerId: made.id, text: "Sale today", color: "#0000ff" }), "layer:updateText");
    expect(longer.text).toMatchObject({ text: "Sale today", color: "#0000ff", size: 40, position: { x: 50, y: 100 } });
    expect(longer.rect.width).toBeGreaterThan(made.rect.width * 1.5);
    expect(longer.revision).toBe(made.revision + 1);
    const history = expectResult("history:list", await s.call("history:list")) as { steps: Array<{ method: string }> };
    expect(history.steps.slice(-2).map((step) => step.method)).toEqual(["layer:create", "layer:updateText"]);
    expect(expectResult("history:undo", await s.call("history:undo"))).toMatchObject({});
    expect((await s.layer("Sale")).text?.text).toBe("Sale");
  });

  it("a box wraps the text into lines within it, aligned as asked", async () => {
    const fonts = await setup();
    if (fonts === undefined || !hasDejaVu(fonts)) return;
    const box = { x: 20, y: 20, width: 200, height: 300 };
    const words = "the quick brown fox jumps over the lazy dog again and again";
    const point = text(await s.call("layer:create", { kind: "text", text: words, font: FONT, size: 20, name: "Point" }), "layer:create");
    const wrapped = text(await s.call("layer:create", { kind: "text", text: words, font: FONT, size: 20, box, alignment: "center", name: "Boxed" }), "layer:create");
    expect(point.rect.width).toBeGreaterThan(box.width);
    expect(wrapped.text).toMatchObject({ box, alignment: "center" });
    expect(wrapped.bounds.left).toBeGreaterThanOrEqual(box.x);
    expect(wrapped.bounds.right).toBeLessThanOrEqual(box.x + box.width);
    // Several lines, 24 px apart (auto leading, 120 % of 20 pt at 72 ppi).
    expect(wrapped.rect.height).toBeGreaterThan(3 * 24);
    const broken = text(await s.call("layer:updateText", { layerId: wrapped.id, text: "one\ntwo\nthree" }), "layer:updateText");
    expect(broken.rect.height).toBeGreaterThan(2 * 24);
    expect(broken.rect.height).toBeLessThan(3 * 24 + 10);
  });

  it("an unknown font is FONT_NOT_FOUND with at most ten near names; font:list names family, style and PostScript name", async () => {
    const fonts = await setup();
    if (fonts === undefined || !hasDejaVu(fonts)) return;
    expect(fonts.find((f) => f.postScriptName === "DejaVuSans-Bold")).toEqual({ family: FONT, style: "Bold", postScriptName: "DejaVuSans-Bold" });
    const before = await s.current();
    const missing = await s.call("layer:create", { kind: "text", text: "x", font: "DejaVu Sanz", size: 12 });
    expect(missing.ok).toBe(false);
    expect(missing.error).toMatchObject({ code: "FONT_NOT_FOUND", retryable: false, details: { font: "DejaVu Sanz" } });
    if (missing.status !== undefined) expect(missing.status).toBe(404);
    const near = (missing.error!.details as { near: string[] }).near;
    expect(near.length).toBeGreaterThan(0);
    expect(near.length).toBeLessThanOrEqual(10);
    expect(near[0]).toMatch(/^DejaVu Sans/);
    expect((await s.current()).revision).toBe(before.revision);
    // Vertical text, and a text edit of a layer that is not text, are refused.
    expect((await s.call("layer:create", { kind: "text", text: "x", font: FONT, size: 12, direction: "ttb" })).error).toMatchObject({ code: "NOT_SUPPORTED" });
    const pixel = text(await s.call("layer:create", {}), "layer:create");
    expect((await s.call("layer:updateText", { layerId: pixel.id, text: "x" })).error).toMatchObject({ code: "BAD_REQUEST" });
  });
});
