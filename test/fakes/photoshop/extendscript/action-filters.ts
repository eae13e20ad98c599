/*
 * executeAction in the DOM stub, for the Image > Adjustments and Filter menu events `edit.filter` plays for the
 * types the DOM has no ArtLayer method for, as Photoshop's ScriptListener records them (Photoshop Scripting Guide,
 * "Action Manager": the listener writes each command as `executeAction(event, descriptor)`): Exposure (`Exps`),
 * Hue/Saturation (`HStr`, its `Adjs` list of `Hst2` entries and `Clrz`), Vibrance, Black & White (`BanW`), Gradient
 * Map (`GrMp`), Box Blur (`boxblur`), Mosaic (`Msc `) and Emboss (`Embs`). Each event acts on the active layer, which
 * must hold pixels (Photoshop User Guide, "Filter basics": filters and adjustments apply to the active, visible
 * layer); each key is checked against the range of the command's dialog. The model's layers are solid colours, so the
 * pixels are not recomputed: the call is recorded as `<layerId>.<event>` (a history state of its own unless
 * Document.suspendHistory is running), which with the recorded descriptor is what the tests check.
 */
import type { FakeDocument } from "../model.js";
import { layerEntries } from "../layers.js";
import type { Item, StubActionDescriptor, StubActionList, TypeIds } from "./action.js";

export interface ActionFilterDeps {
  ids: TypeIds;
  fail: (message: string) => Error;
  activeDocument: () => FakeDocument;
  change: (call: string) => void;
}

/** Each key an event takes: its descriptor type (and unit), and the range of its dialog where it is a number. */
type Key = { type: string; unit?: string; range?: readonly [number, number]; optional?: boolean };

const percent = (lo: number, hi: number): Key => ({ type: "integer", range: [lo, hi] });
const preset: Key = { type: "enumerated", optional: true };
/** Black & White's weights, percent −200–300 (Photoshop User Guide, "Convert a color image to black and white"). */
const weight = percent(-200, 300);

const EVENTS: Record<string, Record<string, Key>> = {
  // Image > Adjustments > Exposure: Exposure −20–20 stops, Offset −0.5–0.5, Gamma Correction 0.01–9.99
  // (Photoshop User Guide, "Adjust HDR exposure and toning").
  exposure: { presetKind: preset, exposure: { type: "double", range: [-20, 20] }, offset: { type: "double", range: [-0.5, 0.5] }, gammaCorrection: { type: "double", range: [0.01, 9.99] } },
  // Image > Adjustments > Hue/Saturation: Colorize and the list of changes, checked entry by entry below.
  hueSaturation: { presetKind: preset, colorize: { type: "boolean" }, adjustment: { type: "list" } },
  // Image > Adjustments > Vibrance: Vibrance and Saturation −100–100 (Photoshop User Guide, "Adjust color saturation").
  vibrance: { presetKind: preset, vibrance: percent(-100, 100), saturation: percent(-100, 100) },
  // Image > Adjustments > Black & White: a weight per hue sector, and the tint when it is on.
  blackAndWhite: {
    presetKind: preset, red: weight, yellow: weight, grain: weight, cyan: weight, blue: weight, magenta: weight,
    useTint: { type: "boolean" }, tintColor: { type: "object", optional: true },
  },
  // Image > Adjustments > Gradient Map: the gradient and Reverse (Photoshop User Guide, "Apply a gradient map").
  gradientMapEvent: { gradient: { type: "object" }, reverse: { type: "boolean" } },
  // Filter > Blur > Box Blur: Radius 1–2000 pixels.
  boxblur: { radius: { type: "unitDouble", unit: "pixelsUnit", range: [1, 2000] } },
  // Filter > Pixelate > Mosaic: Cell Size 2–200 square pixels.
  mosaic: { cellSize: { type: "unitDouble", unit: "pixelsUnit", range: [2, 200] } },
  // Filter > Stylize > Emboss: Angle −180–180 degrees, Height 1–100 pixels, Amount 1–500 % (whole numbers).
  emboss: { angle: { type: "integer", range: [-180, 180] }, height: { type: "integer", range: [1, 100] }, amount: { type: "integer", range: [1, 500] } },
};

/** Hue/Saturation's entries: hue −180–180, saturation and lightness −100–100; colorized, hue 0–360 and saturation 0–100. */
const HUE_KEYS = ["hue", "saturation", "lightness"] as const;
const RAMP_KEYS = ["beginRamp", "beginSustain", "endSustain", "endRamp"] as const;

const outOfRange = (event: string, key: string, v: unknown, [lo, hi]: readonly [number, number]): Error =>
  new Error(`General Photoshop error occurred. ${event}: ${key} ${String(v)} is outside ${lo}–${hi}`);

/** Handles an adjustment or filter event; false for an event that is not one (the caller models the rest). */
export function actionFilter({ ids, fail, activeDocument, change }: ActionFilterDeps): (name: string, desc: StubActionDescriptor | undefined) => boolean {
  const s = (n: number): string => ids.typeIDToStringID(n);
  const k = (id: string): number => ids.stringIDToTypeID(id);
  const within = (event: string, key: string, v: number, range: readonly [number, number]): void => {
    if (!(v >= range[0] && v <= range[1])) throw outOfRange(event, key, v, range);
  };
  const checkKey = (event: string, key: string, spec: Key, item: Item | undefined): void => {
    if (item === undefined) {
      if (spec.optional) return;
      throw fail(`${event}: ${key} is missing`);
    }
    if (item.type !== spec.type || (spec.unit !== undefined && s(item.classID!) !== spec.unit)) throw fail(`${event}: ${key} must be ${spec.type}${spec.unit ? ` in ${spec.unit}` : ""}`);
    if (spec.range) within(event, key, item.value as number, spec.range);
  };
  const hueSaturation = (desc: StubActionDescriptor): void => {
    const colorize = desc.getBoolean(k("colorize"));
    const list = desc.getList(k("adjustment")) as StubActionList;
    if (list.count < 1 || (colorize && list.count !== 1)) throw fail(`hueSaturation: ${list.count} entries${colorize ? " with colorize (one, the colour)" : ""}`);
    for (let i = 0; i < list.count; i++) {
      if (s(list.getObjectType(i)) !== "hueSatAdjustmentV2") throw fail("hueSaturation: each entry must be a hueSatAdjustmentV2");
      const entry = list.getObjectValue(i);
      const master = !entry.hasKey(k("localRange"));
      if (master !== (i === 0)) throw fail("hueSaturation: the master entry (without localRange) comes first, alone");
      const ranges: Record<(typeof HUE_KEYS)[number], readonly [number, number]> = colorize
        ? { hue: [0, 360], saturation: [0, 100], lightness: [-100, 100] }
        : { hue: [-180, 180], saturation: [-100, 100], lightness: [-100, 100] };
      for (const key of HUE_KEYS) checkKey("hueSaturation", key, { type: "integer", range: ranges[key] }, entry.item(k(key)));
      if (master) continue;
      checkKey("hueSaturation", "localRange", { type: "integer", range: [1, 6] }, entry.item(k("localRange")));
      for (const key of RAMP_KEYS) checkKey("hueSaturation", key, { type: "integer", range: [0, 360] }, entry.item(k(key)));
    }
  };
  const gradientMap = (desc: StubActionDescriptor): void => {
    const item = desc.item(k("gradient"))!;
    if (s(item.classID!) !== "gradientClassEvent") throw fail("gradientMapEvent: gradient must be a gradientClassEvent");
    const colors = (item.value as StubActionDescriptor).getList(k("colors"));
    if (colors.count < 2) throw fail("gradientMapEvent: a gradient of fewer than two colour stops");
  };

  return (name, desc) => {
    const keys = EVENTS[name];
    if (keys === undefined || !desc) return false;
    for (const [key] of desc.items) if (!(s(key) in keys)) throw fail(`${name}: ${s(key)} is not a key the stub models`);
    for (const [key, spec] of Object.entries(keys)) checkKey(name, key, spec, desc.item(k(key)));
    if (name === "hueSaturation") hueSaturation(desc);
    if (name === "gradientMapEvent") gradientMap(desc);
    if (name === "blackAndWhite" && desc.getBoolean(k("useTint")) && !desc.hasKey(k("tintColor"))) throw fail("blackAndWhite: useTint without a tintColor");
    const d = activeDocument();
    const layer = layerEntries(d.layers).find((e) => e.layer.id === d.active[0])?.layer;
    if (layer?.kind !== "pixel" && layer?.kind !== "background") throw new Error("General Photoshop error occurred. The command is not currently available.");
    d.dirty = true;
    change(`${layer.id}.${name}`);
    return true;
  };
}
