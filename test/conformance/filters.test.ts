import { describe, expect } from "vitest";
import type { HostLayer } from "../../src/protocol/index.js";
import { itFor } from "./_editors.js";
import { EDIT_MATRIX, editSession, expectRefused, expectResult, type EditSession } from "./_edits.js";

/** Every adjustment type with settings every editor that makes the type can take. */
const ADJUSTMENTS: ReadonlyArray<Record<string, unknown>> = [
  { type: "brightnessContrast", brightness: 20, contrast: 10 },
  { type: "levels", rgb: { inputBlack: 10, inputWhite: 240, gamma: 1.2 } },
  { type: "curves", rgb: [{ input: 0, output: 0 }, { input: 128, output: 160 }, { input: 255, output: 255 }] },
  { type: "exposure", exposure: 0.5 },
  { type: "hueSaturation", hue: 40, saturation: -20 },
  { type: "hueSaturation", colorize: { hue: 200, saturation: 60 } },
  { type: "vibrance", vibrance: 30 },
  { type: "colorBalance", midtones: { cyanRed: 30 } },
  { type: "blackAndWhite" },
  { type: "photoFilter", preserveLuminosity: false },
  { type: "channelMixer", red: { red: 70, green: 30 } },
  { type: "invert" },
  { type: "posterize", levels: 3 },
  { type: "threshold", level: 100 },
  { type: "gradientMap", stops: [{ location: 0, color: "#002060" }, { location: 100, color: "#ffd080" }] },
  { type: "selectiveColor", reds: { cyan: 20 } },
];

/** Every filter type with settings every editor that makes the type can take. */
const FILTERS: ReadonlyArray<Record<string, unknown>> = [
  { type: "gaussianBlur", radius: 2 },
  { type: "motionBlur", angle: 45, distance: 6 },
  { type: "boxBlur", radius: 2 },
  { type: "unsharpMask", amount: 60, radius: 1 },
  { type: "sharpen" },
  { type: "addNoise", amount: 5, distribution: "gaussian" },
  { type: "median", radius: 1 },
  { type: "pixelate", size: 4 },
  { type: "emboss" },
  { type: "highPass", radius: 3 },
];

/** The document the type cases edit: big enough for every filter's settings above. */
const SMALL = { width: 64, height: 48 };

/**
 * `layer:adjust` and `filter:apply` on every present editor, over WebSocket and HTTP: each type is made as one step
 * (the revision rises by one) or, where the editor's `getServerInfo` lists it in `unsupportedTypes` (or lacks the
 * method), answers `NOT_SUPPORTED` naming the editor, the method and the type with nothing changed. Settings out of
 * range are `BAD_REQUEST` naming the field, before any editor is asked.
 */
describe.each(EDIT_MATRIX)("adjustments and filters over $label", ({ editor, transport: { make } }) => {
  const it = itFor(editor);
  let s: EditSession;
  let capabilities: EditSession["edits"] = {};

  const start = async (): Promise<void> => {
    s = await editSession(editor, make);
    capabilities = s.edits;
  };
  const colourLayer = async (): Promise<HostLayer & { revision: number }> =>
    expectResult("layer:create", await s.call("layer:create", { name: "Colour", fillColor: "#c05030", to: "top" })) as HostLayer & { revision: number };

  /**
   * Every type of `list` made on one colour layer of a small new document (no case here reads the pixels, so the
   * sample's full-size canvas would only make each filter slower): each made (revision + 1, the layer answered) or
   * refused as the editor's table says.
   */
  async function makesEach(method: "layer:adjust" | "filter:apply", field: "adjustment" | "filter", list: ReadonlyArray<Record<string, unknown>>): Promise<void> {
    expectResult("document:create", await s.call("document:create", { width: SMALL.width, height: SMALL.height, name: "Small" }));
    const layer = await colourLayer();
    // The revision after the last call: each type is checked against the one before it.
    let revision = layer.revision;
    const capability = capabilities[method];
    for (const settings of list) {
      const outcome = await s.call(method, { layerId: layer.id, [field]: settings });
      if (capability === undefined || capability.unsupportedTypes?.includes(settings["type"] as string) === true) {
        expect(outcome.error?.code, JSON.stringify(outcome)).toBe("NOT_SUPPORTED");
        expect(outcome.error?.details).toMatchObject({ editor: editor.name, capability: method, ...(capability === undefined ? {} : { type: settings["type"] }) });
        expect((await s.current()).revision).toBe(revision);
        continue;
      }
      const edited = expectResult(method, outcome) as HostLayer & { revision: number };
      expect(edited).toMatchObject({ id: layer.id, revision: revision + 1 });
      expect((await s.current()).revision).toBe(revision + 1);
      revision += 1;
    }
  }

  it("layer:adjust makes every adjustment type as one step, or answers NOT_SUPPORTED naming it", async () => {
    await start();
    await makesEach("layer:adjust", "adjustment", ADJUSTMENTS);
  });

  it("filter:apply makes every filter type as one step, or answers NOT_SUPPORTED naming it", async () => {
    await start();
    await makesEach("filter:apply", "filter", FILTERS);
  });

  it("settings out of range, unknown types and layers without pixels are BAD_REQUEST naming the field", async () => {
    await start();
    const layer = await colourLayer();
    const { revision } = await s.current();
    const bad: Array<[string, Record<string, unknown>, string]> = [
      ["layer:adjust", { adjustment: { type: "levels", rgb: { gamma: 20 } } }, "adjustment.rgb.gamma"],
      ["layer:adjust", { adjustment: { type: "brightnessContrast", contrast: -80 } }, "adjustment.contrast"],
      ["layer:adjust", { adjustment: { type: "posterize", levels: 1 } }, "adjustment.levels"],
      ["layer:adjust", { adjustment: { type: "sepia" } }, "adjustment.type"],
      ["filter:apply", { filter: { type: "gaussianBlur", radius: 0 } }, "filter.radius"],
      ["filter:apply", { filter: { type: "addNoise", amount: 500 } }, "filter.amount"],
      ["filter:apply", { filter: { type: "median", radius: 1.5 } }, "filter.radius"],
    ];
    for (const [method, params, field] of bad) {
      const outcome = await s.call(method as "filter:apply", { layerId: layer.id, ...params });
      await expectRefused(s, outcome, "BAD_REQUEST", revision!);
      expect(JSON.stringify(outcome.error), field).toContain(field.split(".").pop()!);
    }
    // A colour the bridge cannot read names its field.
    const colour = await s.call("layer:adjust", { layerId: layer.id, adjustment: { type: "photoFilter", color: "mauve-ish" } });
    if (capabilities["layer:adjust"] !== undefined) {
      await expectRefused(s, colour, "BAD_REQUEST", revision!);
      expect(colour.error?.details).toMatchObject({ "adjustment.color": "mauve-ish" });
    }
    // A group has no pixels of its own.
    const group = expectResult("layer:create", await s.call("layer:create", { kind: "group", name: "G", to: "top" })) as HostLayer;
    const after = (await s.current()).revision!;
    const refused = await s.call("filter:apply", { layerId: group.id, filter: { type: "gaussianBlur" } });
    if (capabilities["filter:apply"] === undefined) expect(refused.error?.code).toBe("NOT_SUPPORTED");
    else {
      await expectRefused(s, refused, "BAD_REQUEST", after);
      expect(refused.error?.details).toMatchObject({ layerId: group.id, kind: "group" });
    }
  });

  it("GIMP refuses the settings it cannot take, naming the field", async () => {
    if (editor.name !== "gimp") return;
    await start();
    const layer = await colourLayer();
    const { revision } = await s.current();
    for (const [method, params, field] of [
      ["layer:adjust", { adjustment: { type: "photoFilter" } }, "adjustment.preserveLuminosity"],
      ["layer:adjust", { adjustment: { type: "channelMixer", red: { constant: 10 } } }, "adjustment.red.constant"],
      ["filter:apply", { filter: { type: "addNoise" } }, "filter.distribution"],
      ["filter:apply", { filter: { type: "addNoise", amount: 60, distribution: "gaussian" } }, "filter.amount"],
      ["filter:apply", { filter: { type: "median", radius: 30 } }, "filter.radius"],
      ["filter:apply", { filter: { type: "emboss", depth: 17 } }, "filter.depth"],
    ] as const) {
      const outcome = await s.call(method, { layerId: layer.id, ...params });
      await expectRefused(s, outcome, "NOT_SUPPORTED", revision!);
      expect(outcome.error?.details).toMatchObject({ editor: "gimp", capability: method, field });
    }
  });

  it("Photoshop refuses the settings its DOM methods and events cannot take, naming the field", async () => {
    if (editor.name !== "photoshop") return;
    await start();
    const layer = await colourLayer();
    const { revision } = await s.current();
    for (const [method, params, field] of [
      ["layer:adjust", { adjustment: { type: "brightnessContrast", legacy: true } }, "adjustment.legacy"],
      ["layer:adjust", { adjustment: { type: "brightnessContrast", brightness: 140 } }, "adjustment.brightness"],
      ["filter:apply", { filter: { type: "motionBlur", distance: 1500 } }, "filter.distance"],
      ["filter:apply", { filter: { type: "emboss", elevation: 60 } }, "filter.elevation"],
    ] as const) {
      const outcome = await s.call(method, { layerId: layer.id, ...params });
      await expectRefused(s, outcome, "NOT_SUPPORTED", revision!);
      expect(outcome.error?.details).toMatchObject({ editor: "photoshop", capability: method, field });
    }
  });
});
