/*
 * executeActionGet in the DOM stub: the document and layer properties the scripts read through the ActionManager.
 * A reference is a chain from the element to its container ("Action references" in Adobe's batchPlay page,
 * https://developer.adobe.com/photoshop/uxp/2022/ps-reference/media/batchplay/): `[property, layer, document]`
 * or `[property, document]`; a missing container means the active one. Only named properties are answered: the
 * same page says a shipping script should not get every property of an element (slow), so the stub refuses it.
 */
import type { FakeDocument, FakeModel } from "../model.js";
import { type FakeLayer, layerBounds } from "../layers.js";
import { FAKE_GLOBAL_LIGHT } from "./action-effects.js";
import { loadDescriptor, type StoredDescriptor, StubActionDescriptor, StubActionList, StubActionReference, type RefPart, type TypeIds } from "./action.js";

/**
 * Ways a test can make the stub break an assumption the scripts make, to show that they notice and fall back.
 * Photoshop itself is modelled with none set.
 */
export interface StubQuirks {
  /** `numberOfLayers` counts the Background layer too. */
  countsBackground?: boolean;
  /** `putIndex` counts layers from the top of the stack instead of the bottom. */
  indexFromTop?: boolean;
  /** `layerKind` answers this code for every layer. */
  layerKind?: number;
  /** Layers (by id) that answer their id and section but no other property. */
  unreadable?: number[];
  /** Work paths made from an ellipse run counter-clockwise on screen (Photoshop's direction is not documented). */
  counterClockwise?: boolean;
}

/**
 * Ids of group dividers. Photoshop gives the hidden end of each group a layer id of its own; the model has none,
 * so the stub derives one far above any id the model hands out.
 */
export const DIVIDER_ID_BASE = 1_000_000;

/**
 * Layer kinds as Photoshop's `layerKind` key reports them: the SheetKind table of CopyCSSToClipboard.jsx, the
 * script Adobe ships in Photoshop's Required folder (kPixelSheet = 1 … kHiddenSectionBounder = 13).
 */
const SHEET_KIND: Record<string, number> = {
  NORMAL: 1, LEVELS: 2, CURVES: 2, TEXT: 3, SMARTOBJECT: 5, VIDEO: 6, GROUP: 7, LAYER3D: 8,
  GRADIENTFILL: 9, PATTERNFILL: 10, SOLIDFILL: 11, BACKGROUND: 12, DIVIDER: 13,
  BRIGHTNESSCONTRAST: 2, BLACKANDWHITE: 2, PHOTOFILTER: 2, SELECTIVECOLOR: 2, CHANNELMIXER: 2, EXPOSURE: 2, GRADIENTMAP: 2, VIBRANCE: 2, COLORBALANCE: 2, HUESATURATION: 2, INVERSION: 2, POSTERIZE: 2, THRESHOLD: 2,
};
// A shape layer and a fill layer are both fill kinds to Photoshop (a shape is a fill drawn through a vector mask):
// the model's are solid colour ones (SOLIDFILL); `hasVectorMask` tells them apart.
const PS_KIND: Record<string, string> = { pixel: "NORMAL", background: "BACKGROUND", text: "TEXT", shape: "SOLIDFILL", fill: "SOLIDFILL", smartObject: "SMARTOBJECT", adjustment: "LEVELS", group: "GROUP" };

/** One entry of the layer stack, bottom-up: a layer, a group's own slot, or a group's divider. */
interface StackRecord {
  layer: FakeLayer;
  id: number;
  section: "layerSectionStart" | "layerSectionContent" | "layerSectionEnd";
}

/** The stack bottom-up: a group's divider below its children, the group itself above them. */
function stack(layers: FakeLayer[]): StackRecord[] {
  const out: StackRecord[] = [];
  const walk = (ls: FakeLayer[]): void => {
    for (let i = ls.length - 1; i >= 0; i--) {
      const layer = ls[i]!;
      if (!layer.children) {
        out.push({ layer, id: layer.id, section: "layerSectionContent" });
        continue;
      }
      out.push({ layer, id: DIVIDER_ID_BASE + layer.id, section: "layerSectionEnd" });
      walk(layer.children);
      out.push({ layer, id: layer.id, section: "layerSectionStart" });
    }
  };
  walk(layers);
  return out;
}

const hasBackground = (d: FakeDocument): boolean => d.layers.at(-1)?.kind === "background";

export interface ActionGetDeps {
  model: FakeModel;
  ids: TypeIds;
  fail: (message: string) => Error;
  activeDocument: () => FakeDocument;
  quirks: StubQuirks;
}

/** The stub's executeActionGet. */
export function actionGet({ model, ids, fail, activeDocument, quirks }: ActionGetDeps): (ref: StubActionReference) => StubActionDescriptor {
  const s = (n: number): string => ids.typeIDToStringID(n);
  const k = (id: string): number => ids.stringIDToTypeID(id);
  // Photoshop answers a reference to something that is not there with an error, not an empty descriptor.
  const missing = (): Error => new Error("General Photoshop error occurred. The object is not currently available.");
  const describe = (parts: RefPart[]): string => JSON.stringify(parts.map((p) => ({ ...p, desiredClass: s(p.desiredClass) })));

  function documentOf(part: RefPart | undefined): FakeDocument {
    if (part === undefined) return activeDocument();
    if (part.form === "identifier") return model.docs.find((d) => d.id === part.id) ?? (() => { throw missing(); })();
    if (part.form === "enumerated" && s(part.value) === "targetEnum") return activeDocument();
    throw fail(`executeActionGet: a document reference by ${part.form} is not modelled`);
  }

  function layerOf(d: FakeDocument, part: RefPart): StackRecord {
    const records = stack(d.layers);
    if (part.form === "identifier") return records.find((r) => r.id === part.id) ?? (() => { throw missing(); })();
    if (part.form === "enumerated" && s(part.value) === "targetEnum") return records.find((r) => r.id === d.active[0]) ?? (() => { throw missing(); })();
    if (part.form !== "index") throw fail(`executeActionGet: a layer reference by ${part.form} is not modelled`);
    // Indices count from 1 ("Indices are 1 based", batchPlay page); the Background layer, below index 1, is index
    // 0. The scripts do not rely on this: they probe past both ends and check the stack they read.
    let at = hasBackground(d) ? part.index : part.index - 1;
    if (quirks.indexFromTop) at = records.length - 1 - at;
    const record = records[at];
    if (!record || !Number.isInteger(part.index)) throw missing();
    return record;
  }

  function documentKey(d: FakeDocument, key: string, out: StubActionDescriptor): void {
    if (key === "targetLayersIDs") {
      const list = new StubActionList();
      for (const id of d.active) {
        const r = new StubActionReference();
        r.putIdentifier(k("layer"), id);
        list.putReference(r);
      }
      out.putList(k(key), list);
    } else if (key === "hasBackgroundLayer") {
      out.putBoolean(k(key), hasBackground(d));
    } else if (key === "numberOfLayers") {
      // Every slot of the stack but the Background layer: a new document with only a Background reads 0 (the
      // document example on the batchPlay page).
      out.putInteger(k(key), stack(d.layers).length - (hasBackground(d) && !quirks.countsBackground ? 1 : 0));
    } else {
      throw fail(`executeActionGet: document property "${key}" is not modelled`);
    }
  }

  function layerKey(d: FakeDocument, r: StackRecord, key: string, out: StubActionDescriptor): void {
    const l = r.layer;
    if (key === "layerID") out.putInteger(k(key), r.id);
    else if (key === "layerSection") out.putEnumerated(k(key), k("layerSectionType"), k(r.section));
    else if (r.section === "layerSectionEnd") throw fail(`executeActionGet: "${key}" of a group divider is not modelled`);
    else if (quirks.unreadable?.includes(r.id)) throw missing();
    else if (key === "name") out.putString(k(key), l.name);
    else if (key === "visible") out.putBoolean(k(key), l.visible);
    // 0-255: the batchPlay page's multiGet example reads "opacity": 255 from an opaque layer.
    else if (key === "opacity") out.putInteger(k(key), Math.round((l.opacity * 255) / 100));
    else if (key === "mode") out.putEnumerated(k(key), k("blendMode"), k(l.blendMode ?? (l.children ? "passThrough" : "normal")));
    // 0-255 like opacity; a group has no fill opacity.
    else if (key === "fillOpacity" && !l.children) out.putInteger(k(key), Math.round(((l.fillOpacity ?? 100) * 255) / 100));
    // layerLocking: an object of the lock flags; protectAll is Lock All.
    else if (key === "layerLocking") {
      const locks = new StubActionDescriptor();
      locks.putBoolean(k("protectAll"), l.locked === true);
      out.putObject(k(key), k("layerLocking"), locks);
    }
    // The layer mask: hasUserMask, then its settings (density in percent, feather in pixels), as the batchPlay
    // page's layer get lists them. Reading a setting of a layer without a mask fails, as a missing key does.
    else if (key === "hasUserMask") out.putBoolean(k(key), l.mask !== undefined);
    // Whether the layer has a vector mask, beside hasUserMask in a layer's descriptor: a shape layer draws its
    // fill through one, a fill layer (and every other kind in the model) has none.
    else if (key === "hasVectorMask") out.putBoolean(k(key), l.kind === "shape");
    // A content or adjustment layer's settings: the `adjustment` list of its descriptor, one object of the
    // content's class (as the batchPlay page's layer get shows for an adjustment layer). Other layers have no key.
    else if (key === "adjustment") {
      if (!l.content) throw missing();
      const list = new StubActionList();
      list.putObject(k(l.content.class), loadDescriptor(l.content.settings as StoredDescriptor, k));
      out.putList(k(key), list);
    }
    // The layer's style (action-effects.ts): its `layerEffects` descriptor as set; a layer without one has no key.
    else if (key === "layerEffects") {
      if (!l.effects) throw missing();
      out.putObject(k(key), k("layerEffects"), loadDescriptor(l.effects, k));
    }
    // The document's global light angle, which every layer descriptor carries as a whole number of degrees.
    else if (key === "globalAngle") out.putInteger(k(key), Math.round(d.globalLight?.angle ?? FAKE_GLOBAL_LIGHT.angle));
    else if (key.startsWith("userMask")) {
      const m = l.mask;
      if (!m) throw missing();
      if (key === "userMaskEnabled") out.putBoolean(k(key), m.enabled);
      else if (key === "userMaskLinked") out.putBoolean(k(key), m.linked);
      else if (key === "userMaskDensity") out.putUnitDouble(k(key), k("percentUnit"), m.density);
      else if (key === "userMaskFeather") out.putUnitDouble(k(key), k("pixelsUnit"), m.feather);
      else throw fail(`executeActionGet: layer property "${key}" is not modelled`);
    }
    // Clipped to the layer below ("Create Clipping Mask"); the model has no clipping.
    else if (key === "group") out.putBoolean(k(key), false);
    else if (key === "layerKind") {
      const code = quirks.layerKind ?? SHEET_KIND[l.psKind ?? PS_KIND[l.kind]!];
      if (code === undefined) throw fail(`layerKind of ${l.psKind ?? l.kind} is not in the stub`);
      out.putInteger(k(key), code);
    } else if (key === "smartObjectMore") {
      // A smart object's placed-layer record (the placed layer data a PSD keeps, Adobe Photoshop File Formats
      // Specification, "Placed Layer Data": `Sz  ` the content's size, `Rslt` its resolution, `Trnf` and
      // `nonAffineTransform` the corners, `warp` with its `warpStyle`). Another kind of layer has none.
      const p = l.placed;
      if (l.kind !== "smartObject" || !p) throw missing();
      const more = new StubActionDescriptor();
      const size = new StubActionDescriptor();
      size.putDouble(k("width"), p.width);
      size.putDouble(k("height"), p.height);
      more.putObject(k("size"), k("point"), size);
      more.putUnitDouble(k("resolution"), k("densityUnit"), p.resolution);
      for (const [name, corners] of [["transform", p.transform], ["nonAffineTransform", p.nonAffineTransform ?? p.transform]] as const) {
        const list = new StubActionList();
        for (const v of corners) list.putDouble(v);
        more.putList(k(name), list);
      }
      const warp = new StubActionDescriptor();
      warp.putEnumerated(k("warpStyle"), k("warpStyle"), k(p.warp ?? "warpNone"));
      more.putObject(k("warp"), k("warp"), warp);
      out.putObject(k(key), k("smartObjectMore"), more);
    } else if (key === "bounds") {
      // The rectangle of the layer's pixels, in pixels whatever the ruler units.
      const b = layerBounds(l);
      const rect = new StubActionDescriptor();
      for (const [side, v] of [["left", b.left], ["top", b.top], ["right", b.right], ["bottom", b.bottom]] as const) rect.putUnitDouble(k(side), k("pixelsUnit"), v);
      out.putObject(k(key), k("rectangle"), rect);
    } else {
      throw fail(`executeActionGet: layer property "${key}" is not modelled`);
    }
  }

  return (ref) => {
    const [prop, ...rest] = ref.parts;
    if (prop?.form !== "property" || s(prop.desiredClass) !== "property") {
      throw fail(`executeActionGet without a named property (every property of an element is not modelled): ${describe(ref.parts)}`);
    }
    const [element, container, ...more] = rest;
    const key = s(prop.property);
    const out = new StubActionDescriptor();
    if (element && s(element.desiredClass) === "layer" && (container === undefined || s(container.desiredClass) === "document") && more.length === 0) {
      const d = documentOf(container);
      layerKey(d, layerOf(d, element), key, out);
    } else if (element && s(element.desiredClass) === "document" && container === undefined) {
      documentKey(documentOf(element), key, out);
    } else {
      throw fail(`executeActionGet with a reference the stub does not model: ${describe(ref.parts)}`);
    }
    return out;
  };
}
