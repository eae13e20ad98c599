import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readPsd, type Layer } from "ag-psd";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { HostLayer } from "../../src/protocol/index.js";
import { itFor } from "./_editors.js";
import { EDIT_MATRIX, editSession, expectRefused, expectResult, exportComposite, flatten, paintedComposite, type EditSession } from "./_edits.js";

/** Every adjustment type, as an adjustment layer's settings. */
const ADJUSTMENTS: ReadonlyArray<Record<string, unknown>> = [
  { type: "brightnessContrast", brightness: 40, contrast: 10 },
  { type: "levels", rgb: { inputBlack: 10, inputWhite: 200, gamma: 1.2 } },
  { type: "curves", rgb: [{ input: 0, output: 0 }, { input: 128, output: 190 }, { input: 255, output: 255 }] },
  { type: "exposure", exposure: 1 },
  { type: "hueSaturation", hue: 120, saturation: -20, ranges: { reds: { lightness: 10 } } },
  { type: "vibrance", vibrance: 30, saturation: 20 },
  { type: "colorBalance", midtones: { cyanRed: -60 } },
  { type: "blackAndWhite" },
  { type: "photoFilter", color: "#0060ff", density: 80, preserveLuminosity: false },
  { type: "channelMixer", red: { red: 20, green: 80 } },
  { type: "invert" },
  { type: "posterize", levels: 2 },
  { type: "threshold", level: 100 },
  { type: "gradientMap", stops: [{ location: 0, color: "#002060" }, { location: 100, color: "#ffd080" }] },
  { type: "selectiveColor", reds: { cyan: 60, black: 30 } },
];

const FILLS: ReadonlyArray<Record<string, unknown>> = [
  { type: "solid", color: "#2050c0" },
  { type: "gradient", style: "linear", stops: [{ location: 0, color: "#ff0000" }, { location: 100, color: "#0000ff" }], angle: 0 },
  { type: "gradient", style: "radial", stops: [{ location: 0, color: "#ffffff" }, { location: 60, color: "#00000080" }], scale: 80 },
  { type: "gradient", style: "angle", stops: [{ location: 0, color: "#ffff00" }, { location: 100, color: "#00ffff" }], angle: 45, reverse: true },
  { type: "gradient", style: "linear", stops: [{ location: 0, color: "#ff0000" }, { location: 100, color: "#00ff00" }], interpolation: "perceptual" },
];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "bridge-content-layers-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Edited = HostLayer & { revision: number };

/**
 * Adjustment and fill layers (`layer:create {kind: "adjustment" | "fill"}`, `layer:update {adjustment | fill}`) on
 * every present editor, over WebSocket and HTTP: made and changed as one step each and read back, or, where the
 * editor's `getServerInfo` lists the kind in `layer:create`'s `unsupportedTypes`, `NOT_SUPPORTED` naming the editor
 * and `adjustment layers` / `fill layers` with nothing changed. An editor that makes some adjustment types only
 * refuses the others as `NOT_SUPPORTED` naming the field.
 */
describe.each(EDIT_MATRIX)("adjustment and fill layers over $label", ({ editor, transport: { make } }) => {
  const it = itFor(editor);
  let s: EditSession;
  let kinds: string[] = [];

  const start = async (): Promise<void> => {
    s = await editSession(editor, make);
    const unsupported = s.edits["layer:create"]?.unsupportedTypes ?? [];
    kinds = ["adjustment", "fill"].filter((k) => !unsupported.includes(k));
  };
  const colourLayer = async (): Promise<HostLayer> => expectResult("layer:create", await s.call("layer:create", { name: "Colour", fillColor: "#c05030", to: "top" })) as HostLayer;

  it("an editor without adjustment or fill layers answers NOT_SUPPORTED naming the capability, and changes nothing", async () => {
    await start();
    const layer = await colourLayer();
    const { revision } = await s.current();
    for (const [kind, field, settings, capability] of [
      ["adjustment", "adjustment", { type: "invert" }, "adjustment layers"],
      ["fill", "fill", { type: "solid", color: "red" }, "fill layers"],
    ] as const) {
      if (kinds.includes(kind)) continue;
      const created = await s.call("layer:create", { kind, [field]: settings });
      await expectRefused(s, created, "NOT_SUPPORTED", revision!);
      expect(created.error?.details).toMatchObject({ editor: editor.name, capability });
      const updated = await s.call("layer:update", { layerId: layer.id, [field]: settings });
      await expectRefused(s, updated, "NOT_SUPPORTED", revision!);
      expect(updated.error?.details).toMatchObject({ editor: editor.name, capability });
    }
  });

  it("every adjustment type makes an adjustment layer in one step, read back with its settings, changing the composite", async () => {
    await start();
    if (!kinds.includes("adjustment")) return;
    // A small new document: the composite is read at one point only, and rendered after every type.
    expectResult("document:create", await s.call("document:create", { width: 64, height: 48, name: "Small" }));
    const base = await colourLayer();
    const before = await paintedComposite(s);
    const refused: string[] = [];
    for (const settings of ADJUSTMENTS) {
      const { revision } = await s.current();
      const outcome = await s.call("layer:create", { kind: "adjustment", adjustment: settings, above: base.id });
      // An editor that makes some types only (Photoshop here) refuses the others honestly, naming the field, and
      // changes nothing; the embedded editor makes every one.
      if (!outcome.ok && editor.name !== "embedded" && outcome.error?.code === "NOT_SUPPORTED") {
        await expectRefused(s, outcome, "NOT_SUPPORTED", revision!);
        expect(outcome.error?.details).toMatchObject({ editor: editor.name, capability: "adjustment layers", field: expect.stringMatching(/^adjustment\./) });
        refused.push(settings["type"] as string);
        continue;
      }
      const made = expectResult("layer:create", outcome) as Edited;
      expect(made).toMatchObject({ kind: "adjustment", revision: revision! + 1, adjustment: { type: settings["type"] } });
      for (const [key, value] of Object.entries(settings)) if (typeof value !== "object") expect(made.adjustment?.[key], `${settings["type"]}.${key}`).toEqual(value);
      const after = await paintedComposite(s);
      if (editor.paints) expect(after.at(10, 10), JSON.stringify(settings)).not.toEqual(before.at(10, 10));
      // Hidden, it changes nothing: the next type starts from the colour layer alone.
      expectResult("layer:update", await s.call("layer:update", { layerId: made.id, visible: false }));
    }
    expect(refused.length, `refused: ${refused.join(", ")}`).toBeLessThan(ADJUSTMENTS.length);
  });

  it("an adjustment layer updates, blends, masks and undoes like any layer, one step each", async () => {
    await start();
    if (!kinds.includes("adjustment")) return;
    const base = await colourLayer();
    const plain = (await paintedComposite(s)).at(10, 10);
    const made = expectResult("layer:create", await s.call("layer:create", { kind: "adjustment", adjustment: { type: "invert" }, name: "Inv", above: base.id })) as Edited;
    expect(made.name).toBe("Inv");
    const inverted = (await paintedComposite(s)).at(10, 10);
    if (editor.paints) expect(inverted.slice(0, 3)).toEqual(plain.slice(0, 3).map((v) => 255 - v!));
    const updated = expectResult("layer:update", await s.call("layer:update", { layerId: made.id, adjustment: { type: "hueSaturation", hue: 180 }, opacity: 40 })) as Edited;
    expect(updated).toMatchObject({ revision: made.revision + 1, opacity: 40, adjustment: { type: "hueSaturation", hue: 180 } });
    expectResult("layer:addMask", await s.call("layer:addMask", { layerId: made.id, from: "hideAll" }));
    if (editor.paints) expect((await exportComposite(s)).at(10, 10)).toEqual(plain);
    const undone = await s.call("history:undo");
    if (undone.ok) {
      expectResult("history:undo", await s.call("history:undo"));
      const back = (await s.layer("Inv")) as HostLayer;
      expect(back.adjustment).toEqual({ type: "invert" });
    }
    // The settings go on an adjustment layer only.
    const { revision } = await s.current();
    const wrong = await s.call("layer:update", { layerId: base.id, adjustment: { type: "invert" } });
    await expectRefused(s, wrong, "BAD_REQUEST", revision!);
    expect(wrong.error?.details).toMatchObject({ layerId: base.id, field: "adjustment" });
  });

  it("solid and gradient fill layers are made and changed in one step each, read back with their settings", async () => {
    await start();
    if (!kinds.includes("fill")) return;
    for (const fill of FILLS) {
      const { revision } = await s.current();
      const made = expectResult("layer:create", await s.call("layer:create", { kind: "fill", fill, to: "top" })) as Edited;
      if (editor.paints && fill["type"] === "solid") expect((await exportComposite(s)).at(5, 5)).toEqual([0x20, 0x50, 0xc0, 255]);
      expect(made).toMatchObject({ kind: "fill", revision: revision! + 1, fill: { ...fill, ...("stops" in fill ? { stops: expect.any(Array) } : {}) } });
      expect(made.name).toMatch(fill["type"] === "solid" ? /^Color Fill \d+$/ : /^Gradient Fill \d+$/);
      if ("stops" in fill) {
        expect((made.fill?.["stops"] as unknown[] | undefined)?.length).toBe((fill["stops"] as unknown[]).length);
        expect(made.fill?.["stops"]).toMatchObject(fill["stops"] as object[]);
      }
    }
    const top = flatten(expectResult("document:layers", await s.call("document:layers")) as HostLayer[])[0]!;
    const changed = expectResult("layer:update", await s.call("layer:update", { layerId: top.id, fill: { type: "solid", color: "#00ff00" } })) as Edited;
    expect(changed.fill).toEqual({ type: "solid", color: "#00ff00" });
    if (editor.paints) expect((await exportComposite(s)).at(5, 5)).toEqual([0, 255, 0, 255]);
  });

  it("bad settings are BAD_REQUEST naming the field, a pattern whose image is not one too, and nothing changes", async () => {
    await start();
    if (kinds.length === 0) return;
    const layer = await colourLayer();
    const { revision } = await s.current();
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ kind: "adjustment" }, "adjustment"],
      [{ kind: "fill" }, "fill"],
      [{ kind: "pixel", adjustment: { type: "invert" } }, "adjustment"],
      [{ kind: "adjustment", adjustment: { type: "levels", rgb: { gamma: 20 } } }, "adjustment.rgb.gamma"],
      [{ kind: "adjustment", adjustment: { type: "posterize", levels: 1 } }, "adjustment.levels"],
      [{ kind: "fill", fill: { type: "gradient", stops: [{ location: 0, color: "red" }] } }, "fill.stops"],
      [{ kind: "fill", fill: { type: "gradient", style: "spiral", stops: [] } }, "fill.style"],
      [{ kind: "fill", fill: { type: "gradient", scale: 500, stops: [{ location: 0, color: "red" }, { location: 100, color: "blue" }] } }, "fill.scale"],
      [{ kind: "fill", fill: { type: "plaid" } }, "fill.type"],
    ];
    for (const [params, field] of bad) {
      const outcome = await s.call("layer:create", params);
      await expectRefused(s, outcome, "BAD_REQUEST", revision!);
      expect(JSON.stringify(outcome.error), field).toContain(field.split(".").pop()!);
    }
    const colour = await s.call("layer:create", { kind: "fill", fill: { type: "solid", color: "mauve-ish" } });
    await expectRefused(s, colour, "BAD_REQUEST", revision!);
    expect(colour.error?.details).toMatchObject({ "fill.color": "mauve-ish" });
    const pattern = await s.call("layer:create", { kind: "fill", fill: { type: "pattern", image: "data:image/png;base64,AAAAAAAA" } });
    await expectRefused(s, pattern, "BAD_REQUEST", revision!);
    const wrong = await s.call("layer:update", { layerId: layer.id, fill: { type: "solid", color: "red" } });
    await expectRefused(s, wrong, "BAD_REQUEST", revision!);
  });

  it("adjustment and fill layers save to PSD as Photoshop's, and ag-psd reads their type and settings", async () => {
    await start();
    if (kinds.length < 2 || !editor.paints) return;
    await colourLayer();
    expectResult("layer:create", await s.call("layer:create", { kind: "adjustment", name: "Curve", adjustment: ADJUSTMENTS[2], to: "top" }));
    expectResult("layer:create", await s.call("layer:create", { kind: "adjustment", name: "Hue", adjustment: ADJUSTMENTS[4], to: "top" }));
    expectResult("layer:create", await s.call("layer:create", { kind: "fill", name: "Solid", fill: FILLS[0], to: "top" }));
    expectResult("layer:create", await s.call("layer:create", { kind: "fill", name: "Ramp", fill: FILLS[1], to: "top" }));
    const path = join(dir, `${editor.label.replace(" ×", "x")}-${Math.random().toString(36).slice(2)}.psd`);
    expectResult("document:save", await s.call("document:save", { savePath: path }));
    const psd = readPsd(await readFile(path), { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true });
    const all = (layers: readonly Layer[]): Layer[] => layers.flatMap((l) => [l, ...all(l.children ?? [])]);
    const byName = (name: string): Layer => all(psd.children ?? []).find((l) => l.name === name)!;
    expect(byName("Curve").adjustment).toMatchObject({ type: "curves", rgb: [{ input: 0, output: 0 }, { input: 128, output: 190 }, { input: 255, output: 255 }] });
    expect(byName("Hue").adjustment).toMatchObject({ type: "hue/saturation", master: { hue: 120, saturation: -20 }, reds: { lightness: 10 } });
    expect(byName("Solid").vectorFill).toMatchObject({ type: "color", color: { r: 0x20, g: 0x50, b: 0xc0 } });
    expect(byName("Ramp").vectorFill).toMatchObject({ type: "solid", style: "linear", angle: 0, colorStops: [{ location: 0 }, { location: 1 }] });
    // Reopened by the editor, they read back as they were made.
    expectResult("document:open", await s.call("document:open", { path }));
    const reopened = flatten(expectResult("document:layers", await s.call("document:layers")) as HostLayer[]);
    const named = (name: string) => reopened.find((l) => l.name === name)!;
    expect(named("Hue")).toMatchObject({ kind: "adjustment", adjustment: { type: "hueSaturation", hue: 120, saturation: -20, ranges: { reds: { lightness: 10 } } } });
    expect(named("Ramp")).toMatchObject({ kind: "fill", fill: { type: "gradient", style: "linear", angle: 0, stops: [{ location: 0, color: "#ff0000" }, { location: 100, color: "#0000ff" }] } });
    expect(named("Solid")).toMatchObject({ kind: "fill", fill: { type: "solid", color: "#2050c0" } });
  });

  it("a pattern fill is made in one step, reads back as a pattern, and changes back to a colour", async () => {
    await start();
    if (!kinds.includes("fill")) return;
    const png = await sharp({ create: { width: 4, height: 2, channels: 3, background: "#30a050" } }).png().toBuffer();
    const { revision } = await s.current();
    const made = expectResult("layer:create", await s.call("layer:create", { kind: "fill", fill: { type: "pattern", image: `data:image/png;base64,${png.toString("base64")}` }, to: "top" })) as Edited;
    // The embedded editor keeps the name asked for (default "Pattern"); Photoshop names the pattern after the preset
    // it made it from.
    expect(made).toMatchObject({ kind: "fill", revision: revision! + 1, name: expect.stringMatching(/^Pattern Fill \d+$/), fill: { type: "pattern", name: expect.any(String) } });
    expect((await s.layer(made.name)) as HostLayer).toMatchObject({ id: made.id, fill: made.fill });
    const changed = expectResult("layer:update", await s.call("layer:update", { layerId: made.id, fill: { type: "solid", color: "#00ff00" } })) as Edited;
    expect(changed).toMatchObject({ revision: revision! + 2, fill: { type: "solid", color: "#00ff00" } });
  });

  it("a pattern fill tiles its image from the canvas's top-left, and saves with the tile among the document's patterns", async () => {
    await start();
    if (!kinds.includes("fill") || !editor.paints) return;
    // A 3×2 tile of six colours: every pixel of the canvas tells which tile pixel it shows.
    const tile = [
      [255, 0, 0], [0, 255, 0], [0, 0, 255],
      [255, 255, 0], [0, 255, 255], [255, 0, 255],
    ];
    const png = await sharp(Buffer.from(tile.flat()), { raw: { width: 3, height: 2, channels: 3 } }).png().toBuffer();
    const made = expectResult(
      "layer:create",
      await s.call("layer:create", { kind: "fill", name: "Tiles", fill: { type: "pattern", image: `data:image/png;base64,${png.toString("base64")}`, name: "six" }, to: "top" }),
    ) as Edited;
    expect(made).toMatchObject({ kind: "fill", fill: { type: "pattern", name: "six" } });
    const picture = await exportComposite(s);
    for (const [x, y] of [[0, 0], [1, 0], [2, 1], [3, 0], [4, 1], [10, 7]] as const) {
      expect(picture.at(x, y), `${x},${y}`).toEqual([...tile[(y % 2) * 3 + (x % 3)]!, 255]);
    }
    const path = join(dir, `${editor.label.replace(" ×", "x")}-pattern-${Math.random().toString(36).slice(2)}.psd`);
    expectResult("document:save", await s.call("document:save", { savePath: path }));
    const psd = readPsd(await readFile(path), { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true, useImageData: true });
    const saved = (psd.children ?? []).find((l) => l.name === "Tiles")!;
    const patternId = saved.vectorFill?.type === "pattern" ? saved.vectorFill.id : undefined;
    const stored = psd.patterns?.find((p) => p.id === patternId);
    expect(stored).toMatchObject({ name: "six", bounds: { w: 3, h: 2 } });
    expect([...stored!.data.slice(0, 8)]).toEqual([255, 0, 0, 255, 0, 255, 0, 255]);
    // Opened again, the layer still draws the tiles from the saved pattern.
    expectResult("document:open", await s.call("document:open", { path }));
    expect((await exportComposite(s)).at(4, 1)).toEqual([0, 255, 255, 255]);
  });
});
