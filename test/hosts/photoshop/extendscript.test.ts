import { describe, expect, it } from "vitest";
import { quotedCompletion } from "../../../src/hosts/photoshop/generator-link.js";
import { OPERATIONS, buildScript } from "../../../src/hosts/photoshop/operations.js";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterEach } from "vitest";
import { decodeImages, runExtendScript } from "../../fakes/photoshop/extendscript/run.js";
import { parseEs3 } from "../../fakes/photoshop/extendscript/realm.js";
import { FakeModel } from "../../fakes/photoshop/model.js";

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
const tempDir = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), "ps-harness-"));
  dirs.push(dir);
  return dir;
};
/** Runs an operation the way the fake does, decoding the image it opens first. */
// biome-ignore lint/suspicious/noExplicitAny: an envelope is whatever the script answered
const envelopeWithFiles = async (model: FakeModel, op: (typeof OPERATIONS)[number], params: Record<string, unknown>): Promise<any> =>
  JSON.parse(runExtendScript(model, buildScript(op, params), await decodeImages(params)).text);

const sample = (): FakeModel => FakeModel.withSample(() => {});
// biome-ignore lint/suspicious/noExplicitAny: an envelope is whatever the script answered
const envelope = (model: FakeModel, op: (typeof OPERATIONS)[number], params: Record<string, unknown> = {}): any =>
  JSON.parse(runExtendScript(model, buildScript(op, params)).text);

describe("the Photoshop operations run as ExtendScript against the DOM stub", () => {
  it.each(OPERATIONS)("%s parses as ECMAScript 3, as Photoshop receives it", (op) => {
    expect(() => parseEs3(buildScript(op, {}))).not.toThrow();
  });

  it("a script using an ES5 method fails, as in Photoshop's ES3 engine", () => {
    const model = sample();
    expect(() => runExtendScript(model, "[1, 2].map(function (x) { return x; })")).toThrow(/map is not a function/);
    expect(() => runExtendScript(model, "JSON.stringify({})")).toThrow(/JSON is not defined/);
    expect(() => runExtendScript(model, "' a '.trim()")).toThrow(/trim is not a function/);
    expect(runExtendScript(model, "var a = []; a.push(1); a.join(',')").text).toBe("1");
  });

  it("an operation written with Array.prototype.map answers JSX_FAILED, as it would in Photoshop", () => {
    const script = buildScript("document.list", {}).replace(
      "for (var i = 0; i < app.documents.length; i++) out.push(__docInfo(app.documents[i]));",
      "out = [app.documents[0]].map(__docInfo);",
    );
    expect(script).toContain(".map(__docInfo)");
    expect(JSON.parse(runExtendScript(sample(), script).text)).toMatchObject({ ok: false, error: { code: "JSX_FAILED", message: expect.stringMatching(/map is not a function/) } });
  });

  it("an API the stub does not model fails the run instead of answering undefined", () => {
    expect(() => runExtendScript(sample(), "app.activeDocument.histogram.length")).toThrow(/Document.histogram is not modelled/);
    expect(() => runExtendScript(sample(), "charIDToTypeID('Zzzz')")).toThrow(/four-character id/);
  });

  it("selection.path outlines the selection: making the work path drops the selection, so the box is read first", () => {
    const model = sample();
    expect(envelope(model, "selection.set", { shape: { kind: "rect", rect: { x: 10, y: 20, width: 30, height: 40 } } })).toMatchObject({ ok: true });
    const out = envelope(model, "selection.path", { expand: 0 });
    expect(out).toMatchObject({ ok: true, result: { box: { x: 10, y: 20, width: 30, height: 40 } } });
    expect(out.result.d).toMatch(/^M10 20 C/);
    // The history state is restored: the selection is back and no work path is left behind.
    expect(model.docs[0]!.selection).toEqual({ x: 10, y: 20, width: 30, height: 40 });
    expect(model.docs[0]!.paths ?? []).toEqual([]);
    const grown = envelope(model, "selection.path", { expand: 4 });
    expect(grown.result.box).toEqual({ x: 6, y: 16, width: 38, height: 48 });
  });

  it("selection.path reads the work path, not a vector mask listed after it", () => {
    const model = sample();
    model.docs[0]!.paths = [{ name: "Shape 1 Vector Mask", kind: "VECTORMASK", points: [[0, 0], [5, 0], [5, 5]] }];
    envelope(model, "selection.set", { shape: { kind: "rect", rect: { x: 100, y: 50, width: 20, height: 10 } } });
    const out = runExtendScript(model, buildScript("selection.path", { expand: 0 }));
    expect(model.docs[0]!.paths).toHaveLength(1);
    expect(JSON.parse(out.text).result.d).toMatch(/^M100 50 /);
  });

  it("lengths are pixels whatever the user's ruler units and the document's resolution", () => {
    const model = sample();
    model.docs[0]!.resolution = 300;
    expect(envelope(model, "document.get", {}).result).toMatchObject({ width: 320, height: 240, resolution: 300 });
    const set = envelope(model, "selection.set", { shape: { kind: "polygon", points: [{ x: 10, y: 10 }, { x: 60, y: 10 }, { x: 35, y: 50 }] } });
    expect(set.result).toEqual({ x: 10, y: 10, width: 50, height: 40 });
    const layer = envelope(model, "layer.get", { layerId: model.docs[0]!.layers[0]!.id }).result;
    expect(layer.bounds).toEqual({ left: 20, top: 10, right: 300, bottom: 50 });
  });

  it("read-only operations leave the active document alone", () => {
    const events: string[] = [];
    const model = FakeModel.withSample((name) => events.push(name));
    envelope(model, "document.create", { name: "Second", width: 10, height: 10, background: "transparent" });
    const [first, second] = model.docs;
    events.length = 0;
    expect(envelope(model, "document.list").result).toHaveLength(2);
    expect(envelope(model, "document.get", { documentId: first!.id }).result.activeLayerIds).toEqual(first!.active);
    expect(envelope(model, "selection.get", { documentId: first!.id })).toEqual({ ok: true, result: null });
    expect(model.activeDoc).toBe(second!.id);
    expect(events).toEqual([]);
  });

  it("an envelope never carries a raw carriage return (generator-core takes `name\\rdata` for an event)", () => {
    const model = sample();
    model.docs[0]!.layers[0]!.name = "line one\rline two\u2028";
    const text = runExtendScript(model, buildScript("document.tree", {})).text;
    expect(text).not.toMatch(/[\r\u2028]/);
    expect(JSON.parse(text).result.layers[0].name).toBe("line one\rline two\u2028");
  });

  it("selection.path grows the selection past 500 px in steps Photoshop accepts", () => {
    const model = sample();
    model.docs[0]!.width = 4000;
    model.docs[0]!.height = 4000;
    envelope(model, "selection.set", { shape: { kind: "rect", rect: { x: 1500, y: 1500, width: 10, height: 10 } } });
    expect(envelope(model, "selection.path", { expand: 700 }).result.box).toEqual({ x: 800, y: 800, width: 1410, height: 1410 });
  });

  it("the cutout actions do not show a hidden layer", () => {
    const model = sample();
    const title = model.docs[0]!.layers[0]!;
    title.visible = false;
    expect(envelope(model, "action.autoCutout", { layerId: title.id })).toEqual({ ok: true, result: true });
    expect(envelope(model, "action.removeBackground", { layerId: title.id })).toEqual({ ok: true, result: true });
    expect(title.visible).toBe(false);
  });

  it("document.save writes a layered PSD even for a document opened from a JPEG, and a real PSB for .psb", async () => {
    const dir = await tempDir();
    const jpeg = join(dir, "photo.jpg");
    await sharp({ create: { width: 8, height: 6, channels: 3, background: "#336699" } }).jpeg().toFile(jpeg);
    const model = sample();
    const opened = (await envelopeWithFiles(model, "document.open", { path: jpeg })).result;
    const psd = join(dir, "photo.psd");
    expect((await envelopeWithFiles(model, "document.save", { documentId: opened.id, path: psd })).result).toEqual({ path: psd });
    const psdBytes = await readFile(psd);
    expect([psdBytes.subarray(0, 4).toString("latin1"), psdBytes.readUInt16BE(4)]).toEqual(["8BPS", 1]);
    const psb = join(dir, "photo.psb");
    expect((await envelopeWithFiles(model, "document.save", { documentId: opened.id, path: psb })).result).toEqual({ path: psb });
    expect((await readFile(psb)).readUInt16BE(4)).toBe(2);
  });

  it("layer.place puts the image's top-left at x, y even when the PNG has transparent margins", async () => {
    const dir = await tempDir();
    const png = join(dir, "margins.png");
    // 40×30, transparent except a 10×6 block at (12, 8).
    await sharp({ create: { width: 40, height: 30, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite([{ input: { create: { width: 10, height: 6, channels: 4, background: "#ff0000" } }, left: 12, top: 8 }])
      .png()
      .toFile(png);
    const model = sample();
    const out = await envelopeWithFiles(model, "layer.place", { path: png, name: "Placed", x: 100, y: 50, aboveLayerId: null });
    const layer = envelope(model, "layer.get", { layerId: out.result }).result;
    expect(layer.bounds).toEqual({ left: 112, top: 58, right: 122, bottom: 64 });
    expect(model.docs[0]!.layers[0]!.color).toEqual([255, 0, 0, 255]);
  });

  it("video and 3D layers are reported as pixel layers; adjustment layers as adjustments", () => {
    const model = sample();
    const [title, , background] = model.docs[0]!.layers;
    title!.psKind = "VIDEO";
    background!.psKind = "CURVES";
    background!.kind = "adjustment";
    const kinds = envelope(model, "document.tree", {}).result.layers.map((l: { kind: string }) => l.kind);
    expect(kinds).toEqual(["pixel", "group", "adjustment"]);
    title!.psKind = "LAYER3D";
    expect(envelope(model, "layer.get", { layerId: title!.id }).result.kind).toBe("pixel");
  });

  it("the plugin's wrapper of a user script is ES3 and answers the completion as a JSON string with no raw CR", () => {
    const model = sample();
    const text = runExtendScript(model, quotedCompletion("var s = 'a\\rb'; s + '\\u2028' + 7")).text;
    expect(text).not.toMatch(/[\r\u2028]/);
    expect(JSON.parse(text)).toBe("a\rb\u20287");
    expect(runExtendScript(model, quotedCompletion("undefined")).text).toBe('""');
  });
});
