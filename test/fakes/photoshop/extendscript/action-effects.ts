/*
 * executeAction in the DOM stub, for a layer's style (Photoshop User Guide, "Layer effects and styles": a style is a
 * set of effects, applied with the Layer Style dialog, cleared with Layer > Layer Style > Clear Layer Style) and the
 * document's global light ("Set a global lighting angle for all layers": Layer > Layer Style > Global Light, an angle
 * and an altitude that effects using it share). A PSD keeps a style as one descriptor (Adobe Photoshop File Formats
 * Specification, "Object-based effects layer info"); the events are those ScriptListener records for the dialog:
 *
 * - `set` of the target layer's `layerEffects` property `to` a `layerEffects` object: the layer's style becomes it
 *   (what Photoshop does with a style the layer already had, merge or replace, is not documented: the scripts clear
 *   it first, and the stub replaces). The Background layer has no style.
 * - `disableLayerStyle` (`dlfx`, Clear Layer Style) of the target layer: its style goes; a layer without one fails.
 * - `set` of the target document's `globalAngle` property `to` a `globalAngle` object {globalLightingAngle,
 *   globalAltitude?}.
 *
 * Every key of an effect is checked against the key, type and unit ScriptListener records for it: a key the stub
 * does not know fails the run, so a misspelt key cannot pass.
 */
import type { FakeDocument } from "../model.js";
import { layerEntries } from "../layers.js";
import { type Item, storeDescriptor, type StubActionDescriptor, type StubActionList, type StubActionReference, type TypeIds } from "./action.js";

/** Photoshop's global light for a document that records none (the Global Light dialog's defaults). */
export const FAKE_GLOBAL_LIGHT = { angle: 120, altitude: 30 } as const;

const BLEND = "enumerated:blendMode";
const PERCENT = "unitDouble:percentUnit";
const PIXELS = "unitDouble:pixelsUnit";
const ANGLE = "unitDouble:angleUnit";
const COLOR = "object:RGBColor";
const CONTOUR = "object:shapeCurveType";
const SWITCHES = { enabled: "boolean", present: "boolean", showInDialog: "boolean" };
const BLENDING = { ...SWITCHES, mode: BLEND, opacity: PERCENT };
const SHADOW = { ...BLENDING, color: COLOR, useGlobalAngle: "boolean", localLightingAngle: ANGLE, distance: PIXELS, chokeMatte: PIXELS, blur: PIXELS, noise: PERCENT, antiAlias: "boolean", transferSpec: CONTOUR };
const GLOW = { ...BLENDING, color: COLOR, glowTechnique: "enumerated:matteTechnique", chokeMatte: PIXELS, blur: PIXELS, noise: PERCENT, shadingNoise: PERCENT, antiAlias: "boolean", transferSpec: CONTOUR, inputRange: PERCENT };
const GRADIENT = {
  gradient: "object:gradientClassEvent",
  type: "enumerated:gradientType",
  angle: ANGLE,
  scale: PERCENT,
  reverse: "boolean",
  align: "boolean",
  dither: "boolean",
  offset: "object:paint",
  // Photoshop 2022's gradient Method menu; classic writes no key.
  gradientsInterpolationMethod: "enumerated:gradientInterpolationMethodType",
};

/** Each effect's class and the keys (`type` or `type:class-or-enum-or-unit`) it takes. */
const EFFECT_KEYS: Record<string, Record<string, string>> = {
  dropShadow: { ...SHADOW, layerConceals: "boolean" },
  innerShadow: SHADOW,
  outerGlow: GLOW,
  innerGlow: { ...GLOW, innerGlowSource: "enumerated:innerGlowSourceType" },
  bevelEmboss: {
    ...SWITCHES, bevelStyle: "enumerated:bevelEmbossStyle", bevelTechnique: "enumerated:bevelTechnique", strengthRatio: PERCENT, bevelDirection: "enumerated:bevelEmbossStampStyle",
    blur: PIXELS, softness: PIXELS, useGlobalAngle: "boolean", localLightingAngle: ANGLE, localLightingAltitude: ANGLE, transferSpec: CONTOUR, antialiasGloss: "boolean",
    highlightMode: BLEND, highlightColor: COLOR, highlightOpacity: PERCENT, shadowMode: BLEND, shadowColor: COLOR, shadowOpacity: PERCENT, useShape: "boolean", useTexture: "boolean",
  },
  chromeFX: { ...BLENDING, color: COLOR, antiAlias: "boolean", invert: "boolean", localLightingAngle: ANGLE, distance: PIXELS, blur: PIXELS, mappingShape: CONTOUR },
  solidFill: { ...BLENDING, color: COLOR },
  gradientFill: { ...BLENDING, ...GRADIENT },
  frameFX: { ...BLENDING, ...GRADIENT, style: "enumerated:frameStyle", size: PIXELS, overprint: "boolean", paintType: "enumerated:frameFill", color: COLOR },
};
/** The values of the enumerations above. */
const ENUM_VALUES: Record<string, string[]> = {
  matteTechnique: ["softMatte", "preciseMatte"],
  innerGlowSourceType: ["edgeGlow", "centerGlow"],
  bevelEmbossStyle: ["innerBevel", "outerBevel", "emboss", "pillowEmboss", "strokeEmboss"],
  bevelTechnique: ["softMatte", "preciseMatte", "slopeLimitMatte"],
  bevelEmbossStampStyle: ["in", "out"],
  gradientType: ["linear", "radial", "angle", "reflected", "diamond"],
  gradientInterpolationMethodType: ["perceptual", "linear", "smooth"],
  frameStyle: ["outsetFrame", "insetFrame", "centeredFrame"],
  frameFill: ["solidColor", "gradientFill"],
};
/** The list keys of the kinds Photoshop stacks (up to ten of each), and the class of their items. */
const MULTI: Record<string, string> = { dropShadowMulti: "dropShadow", innerShadowMulti: "innerShadow", solidFillMulti: "solidFill", gradientFillMulti: "gradientFill", frameFXMulti: "frameFX" };
const MOST_OF_A_KIND = 10;

export interface ActionEffectsDeps {
  ids: TypeIds;
  fail: (message: string) => Error;
  activeDocument: () => FakeDocument;
  change: (call: string) => void;
}

/** Handles a style or global light event; false for any other (the caller models the rest). */
export function actionEffects({ ids, fail, activeDocument, change }: ActionEffectsDeps): (name: string, desc: StubActionDescriptor | undefined) => boolean {
  const s = (n: number): string => ids.typeIDToStringID(n);
  const k = (id: string): number => ids.stringIDToTypeID(id);
  const unavailable = (): Error => new Error("General Photoshop error occurred. The command is not currently available.");
  /** `[property <name>, <container> targetEnum]`. */
  const isTargetProperty = (r: StubActionReference | undefined, property: string, container: string): boolean => {
    const [p, c] = r?.parts ?? [];
    return r?.parts.length === 2 && p?.form === "property" && s(p.property) === property && c?.form === "enumerated" && s(c.desiredClass) === container && s(c.value) === "targetEnum";
  };
  const target = (desc: StubActionDescriptor): StubActionReference | undefined => {
    const item = desc.item(k("null"));
    return item?.type === "reference" ? (item.value as StubActionReference) : undefined;
  };
  const checkItem = (where: string, item: Item, spec: string): void => {
    const [type, extra] = spec.split(":");
    if (item.type !== type) throw fail(`${where} must be ${type}, not ${item.type}`);
    if (type === "object" && s(item.classID!) !== extra) throw fail(`${where} must be a ${extra} object, not ${s(item.classID!)}`);
    if (type === "unitDouble" && s(item.classID!) !== extra) throw fail(`${where} must be in ${extra}, not ${s(item.classID!)}`);
    if (type === "enumerated") {
      const enumType = s(item.enumType!);
      if (enumType !== extra) throw fail(`${where} must be a ${extra} value, not a ${enumType}`);
      if (ENUM_VALUES[enumType] && !ENUM_VALUES[enumType]!.includes(s(item.value as number))) throw fail(`${where}: ${s(item.value as number)} is not a ${enumType}`);
    }
  };
  const checkEffect = (cls: string, effect: StubActionDescriptor): void => {
    const keys = EFFECT_KEYS[cls]!;
    for (const [key, item] of effect.items) {
      const spec = keys[s(key)];
      if (spec === undefined) throw fail(`${cls}.${s(key)} is not a key the stub models`);
      checkItem(`${cls}.${s(key)}`, item, spec);
    }
  };
  const checkStyle = (style: StubActionDescriptor): void => {
    for (const [key, item] of style.items) {
      const name = s(key);
      if (name === "scale") checkItem(name, item, PERCENT);
      else if (EFFECT_KEYS[name]) {
        checkItem(name, item, `object:${name}`);
        checkEffect(name, item.value as StubActionDescriptor);
      } else if (MULTI[name]) {
        if (item.type !== "list") throw fail(`${name} must be a list`);
        const list = item.value as StubActionList;
        if (list.count < 1 || list.count > MOST_OF_A_KIND) throw fail(`${name} holds ${list.count} effects: Photoshop stacks 1 to ${MOST_OF_A_KIND}`);
        for (let i = 0; i < list.count; i++) {
          if (s(list.getObjectType(i)) !== MULTI[name]) throw fail(`${name}[${i}] must be a ${MULTI[name]} object`);
          checkEffect(MULTI[name]!, list.getObjectValue(i));
        }
      } else {
        throw fail(`layerEffects.${name} is not a key the stub models`);
      }
    }
  };
  const activeLayer = (d: FakeDocument) => {
    const l = layerEntries(d.layers).find((e) => e.layer.id === d.active[0])?.layer;
    if (!l) throw unavailable();
    return l;
  };

  return (name, desc) => {
    if (!desc) return false;
    const ref = target(desc);
    if (name === "set" && isTargetProperty(ref, "layerEffects", "layer")) {
      const to = desc.item(k("to"));
      if (to?.type !== "object" || s(to.classID!) !== "layerEffects") throw fail("set layerEffects: to must be a layerEffects object");
      checkStyle(to.value as StubActionDescriptor);
      const d = activeDocument();
      const l = activeLayer(d);
      if (l.kind === "background") throw unavailable();
      l.effects = storeDescriptor(to.value as StubActionDescriptor, s);
      d.dirty = true;
      change("set layerEffects");
      return true;
    }
    if (name === "disableLayerStyle") {
      if (ref?.parts.length !== 1 || ref.parts[0]!.form !== "enumerated" || s(ref.parts[0]!.desiredClass) !== "layer" || s(ref.parts[0]!.value) !== "targetEnum") {
        throw fail("disableLayerStyle: only the target layer is modelled");
      }
      const d = activeDocument();
      const l = activeLayer(d);
      if (!l.effects) throw unavailable();
      delete l.effects;
      d.dirty = true;
      change("disableLayerStyle");
      return true;
    }
    if (name === "set" && isTargetProperty(ref, "globalAngle", "document")) {
      const to = desc.item(k("to"));
      if (to?.type !== "object" || s(to.classID!) !== "globalAngle") throw fail("set globalAngle: to must be a globalAngle object");
      const light = to.value as StubActionDescriptor;
      for (const [key, item] of light.items) {
        if (!["globalLightingAngle", "globalAltitude"].includes(s(key))) throw fail(`globalAngle.${s(key)} is not a key the stub models`);
        checkItem(`globalAngle.${s(key)}`, item, ANGLE);
      }
      const angle = light.item(k("globalLightingAngle"));
      if (angle === undefined) throw fail("set globalAngle without globalLightingAngle");
      const d = activeDocument();
      const altitude = light.item(k("globalAltitude"))?.value as number | undefined;
      d.globalLight = { angle: angle.value as number, altitude: altitude ?? d.globalLight?.altitude ?? FAKE_GLOBAL_LIGHT.altitude };
      d.dirty = true;
      change("set globalAngle");
      return true;
    }
    return false;
  };
}
