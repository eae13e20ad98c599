/*
 * executeAction in the DOM stub, for the events the edit operations play, as Photoshop's ScriptListener records
 * them (and the batchPlay descriptors of https://developer.adobe.com/photoshop/uxp/2022/ps-reference/media/batchplay/
 * name them): a layer mask made, deleted, applied or set (`make` / `delete` / `set` on the `mask` channel and the
 * layer's userMask* keys), Free Transform (`transform`), Merge Layers (`mergeLayersNew`), a layer's transparency as
 * the selection (`set` / `add` / `subtract` / `intersect` with the `transparencyEnum` channel) and the magic wand
 * (`set` / `addTo` / `subtractFrom` / `intersectWith` the selection to a `paint` point), and fill and adjustment
 * layers made (`make` of a `contentLayer` / `adjustmentLayer`) and changed (`set` of the target's content), and
 * pattern presets defined from the selection (`make` of a `pattern`) and deleted by name.
 */
import type { FakeDocument, FakeModel, FakePatternPreset } from "../model.js";
import { type Bounds, type FakeLayer, layerBounds, layerEntries, parentList } from "../layers.js";
import { combine, isEmpty, leaves, mapLayers, turn, union } from "../geometry.js";
import { loadDescriptor, type StoredDescriptor, storeDescriptor, type StubActionDescriptor, type StubActionReference, type TypeIds } from "./action.js";
import { wandBounds } from "./dom-edits.js";
import type { DecodedImage } from "./dom.js";

export interface ActionEditDeps {
  model: FakeModel;
  ids: TypeIds;
  fail: (message: string) => Error;
  activeDocument: () => FakeDocument;
  change: (call: string) => void;
  /** The images the script may open, decoded before it ran (run.ts). */
  images: Map<string, DecodedImage>;
}

type Mode = "replace" | "add" | "subtract" | "intersect";
const WAND_MODES: Record<string, Mode> = { set: "replace", addTo: "add", subtractFrom: "subtract", intersectWith: "intersect" };
const TRANSPARENCY_MODES: Record<string, [Mode, string]> = { add: ["add", "to"], subtract: ["subtract", "from"], intersect: ["intersect", "with"] };
const EDIT_EVENTS = new Set(["placedLayerReplaceContents", "make", "delete", "set", "add", "subtract", "intersect", "addTo", "subtractFrom", "intersectWith", "transform", "mergeLayersNew"]);
/** The contents each layer class takes, as the scripts make them. */
const CONTENT_CLASSES: Record<string, string[]> = {
  contentLayer: ["solidColorLayer", "gradientLayer", "patternLayer"],
  adjustmentLayer: ["brightnessEvent", "levels", "curves", "colorBalance", "hueSaturation", "invert", "posterization", "thresholdClassEvent",
    "exposure", "vibrance", "channelMixer", "gradientMapClass", "blackAndWhite", "photoFilter", "selectiveColor",
  ],
};
/** The LayerKind the DOM reports for each content (Photoshop JavaScript Reference, LayerKind). */
const CONTENT_KINDS: Record<string, string> = {
  solidColorLayer: "SOLIDFILL", gradientLayer: "GRADIENTFILL", patternLayer: "PATTERNFILL", brightnessEvent: "BRIGHTNESSCONTRAST", hueSaturation: "HUESATURATION",
  levels: "LEVELS", curves: "CURVES", colorBalance: "COLORBALANCE", exposure: "EXPOSURE", vibrance: "VIBRANCE", channelMixer: "CHANNELMIXER",
  gradientMapClass: "GRADIENTMAP", blackAndWhite: "BLACKANDWHITE", photoFilter: "PHOTOFILTER", selectiveColor: "SELECTIVECOLOR",
  invert: "INVERSION", posterization: "POSTERIZE", thresholdClassEvent: "THRESHOLD",
};
/** Photoshop's names of the new layers. */
const CONTENT_NAMES: Record<string, string> = {
  solidColorLayer: "Color Fill", gradientLayer: "Gradient Fill", patternLayer: "Pattern Fill", brightnessEvent: "Brightness/Contrast", hueSaturation: "Hue/Saturation",
  levels: "Levels", curves: "Curves", colorBalance: "Color Balance", exposure: "Exposure", vibrance: "Vibrance", channelMixer: "Channel Mixer",
  gradientMapClass: "Gradient Map", blackAndWhite: "Black & White", photoFilter: "Photo Filter", selectiveColor: "Selective Color",
  invert: "Invert", posterization: "Posterize", thresholdClassEvent: "Threshold",
};
const unavailable = (): Error => new Error("General Photoshop error occurred. The command is not currently available.");

/** Handles an edit event; false for an event that is not one (the caller models the rest). */
export function actionEdit({ model, ids, fail, activeDocument, change, images }: ActionEditDeps): (name: string, desc: StubActionDescriptor | undefined) => boolean {
  const s = (n: number): string => ids.typeIDToStringID(n);
  const k = (id: string): number => ids.stringIDToTypeID(id);
  const ref = (desc: StubActionDescriptor, key: string): StubActionReference | undefined => {
    const item = desc.item(k(key));
    return item?.type === "reference" ? (item.value as StubActionReference) : undefined;
  };
  const isSelection = (r: StubActionReference | undefined): boolean => r?.parts.length === 1 && r.parts[0]!.form === "property" && s(r.parts[0]!.desiredClass) === "channel" && s(r.parts[0]!.property) === "selection";
  const isMask = (r: StubActionReference | undefined): boolean => r?.parts.length === 1 && r.parts[0]!.form === "enumerated" && s(r.parts[0]!.value) === "mask";
  const isTarget = (r: StubActionReference | undefined): boolean => r?.parts.length === 1 && r.parts[0]!.form === "enumerated" && s(r.parts[0]!.desiredClass) === "layer" && s(r.parts[0]!.value) === "targetEnum";
  /** The layer of a `transparencyEnum` channel reference (`[channel transparencyEnum, layer by id]`). */
  const transparencyOf = (d: FakeDocument, r: StubActionReference | undefined): FakeLayer | undefined => {
    const [channel, layer] = r?.parts ?? [];
    if (channel?.form !== "enumerated" || s(channel.value) !== "transparencyEnum" || layer?.form !== "identifier") return undefined;
    const found = layerEntries(d.layers).find((e) => e.layer.id === layer.id)?.layer;
    if (!found) throw new Error("General Photoshop error occurred. No such element");
    return found;
  };
  const active = (d: FakeDocument): FakeLayer => {
    const l = layerEntries(d.layers).find((e) => e.layer.id === d.active[0])?.layer;
    if (!l) throw unavailable();
    return l;
  };
  const pixels = (d: FakeDocument, key: string, box: StubActionDescriptor): number => {
    const item = box.item(k(key));
    if (item?.type !== "unitDouble" || s(item.classID!) !== "pixelsUnit") throw fail(`${key} must be a unitDouble in pixelsUnit`);
    void d;
    return item.value as number;
  };
  const value = (desc: StubActionDescriptor, key: string, type: string, unit?: string): unknown => {
    const item = desc.item(k(key));
    if (item === undefined) return undefined;
    if (item.type !== type || (unit !== undefined && s(item.classID!) !== unit)) throw fail(`${key} must be ${type}${unit ? ` in ${unit}` : ""}`);
    return item.value;
  };
  // A layer's transparency as a box: its bounds (mask included).
  const opaque = (l: FakeLayer): Bounds | null => (isEmpty(layerBounds(l)) ? null : layerBounds(l));

  // A content object, checked against the classes the layer class takes.
  const contentOf = (layerClass: string, item: ReturnType<StubActionDescriptor["item"]>): { class: string; settings: StoredDescriptor } => {
    if (item?.type !== "object") throw fail(`${layerClass}: the content must be an object`);
    const cls = s(item.classID!);
    if (!CONTENT_CLASSES[layerClass]!.includes(cls)) throw fail(`${layerClass}: ${cls} is not a content the stub models`);
    return { class: cls, settings: storeDescriptor(item.value as StubActionDescriptor, s) };
  };
  // The model's layers are one colour: a solid fill's, a gradient's first stop, nothing for an adjustment.
  const colorOf = (stored: { class: string; settings: StoredDescriptor }): [number, number, number, number] => {
    const content = { class: stored.class, settings: loadDescriptor(stored.settings, k) };
    const rgb = (c: StubActionDescriptor): [number, number, number, number] => [c.getDouble(k("red")), c.getDouble(k("grain")), c.getDouble(k("blue")), 255];
    if (content.class === "solidColorLayer") return rgb(content.settings.getObjectValue(k("color")));
    if (content.class === "gradientLayer") return rgb(content.settings.getObjectValue(k("gradient")).getList(k("colors")).getObjectValue(0).getObjectValue(k("color")));
    if (content.class === "patternLayer") return [...presetOf(content.settings.getObjectValue(k("pattern"))).color];
    return [0, 0, 0, 0];
  };
  /**
   * The preset a `pattern` object names. Scripts name it by `name` alone (no `ID`); Photoshop then looks the name up
   * among the presets, and a name that is none fails as Photoshop's "not currently available".
   */
  const presetOf = (pattern: StubActionDescriptor): FakePatternPreset => {
    const name = value(pattern, "name", "string") as string | undefined;
    if (name === undefined) throw fail("pattern: only a pattern named by name is modelled");
    const preset = model.patternPresets.find((p) => p.name === name);
    if (!preset) throw unavailable();
    return preset;
  };
  const isPatternClass = (r: StubActionReference | undefined): boolean => r?.parts.length === 1 && r.parts[0]!.form === "class" && s(r.parts[0]!.desiredClass) === "pattern";
  /** `[selection property, document ordinal targetEnum]`: the active document's selection. */
  const isDocumentSelection = (r: StubActionReference | undefined): boolean => {
    const [prop, doc] = r?.parts ?? [];
    return r?.parts.length === 2 && prop?.form === "property" && s(prop.property) === "selection" && doc?.form === "enumerated" && s(doc.desiredClass) === "document" && s(doc.value) === "targetEnum";
  };

  return (name, desc) => {
    if (!EDIT_EVENTS.has(name) || !desc) return false;
    // Deleting a preset in the Patterns panel: `delete` of the pattern named (the first of that name). A name that is
    // no preset's fails. Presets belong to Photoshop, not to a document: no document needs to be open.
    if (name === "delete") {
      const r = ref(desc, "null");
      const part = r?.parts.length === 1 ? r.parts[0] : undefined;
      if (part?.form === "name" && s(part.desiredClass) === "pattern") {
        const at = model.patternPresets.findIndex((p) => p.name === part.name);
        if (at < 0) throw unavailable();
        model.patternPresets.splice(at, 1);
        return true;
      }
    }
    const d = activeDocument();
    // Layer > Smart Objects > Replace Contents (`placedLayerReplaceContents`, the file in `null`) of the active
    // layer: the smart object's content becomes the file, and the layer keeps its transform (Photoshop User Guide,
    // "Replace the contents of a Smart Object": "any scaling, warping, or effects that you applied to the first Smart
    // Object are maintained").
    // Content of the old content's size and resolution keeps the frame's corners; content of another size, which
    // Photoshop would scale by its own rules, is not modelled.
    if (name === "placedLayerReplaceContents") {
      const file = desc.item(k("null"));
      if (file?.type !== "path") throw fail("placedLayerReplaceContents: null must be a path");
      const path = (file.value as { fsName: string }).fsName;
      const l = active(d);
      if (l.kind !== "smartObject" || !l.placed) throw unavailable();
      const image = images.get(path);
      if (!image) throw new Error(`File or folder does not exist: ${path}`);
      if (image.width !== l.placed.width || image.height !== l.placed.height || image.resolution !== l.placed.resolution) {
        throw fail(`placedLayerReplaceContents with ${image.width}×${image.height} at ${image.resolution} ppi into ${l.placed.width}×${l.placed.height} at ${l.placed.resolution} ppi is not modelled`);
      }
      const c = (Math.floor(image.height / 2) * image.width + Math.floor(image.width / 2)) * 4;
      l.color = [image.data[c]!, image.data[c + 1]!, image.data[c + 2]!, image.data[c + 3]!];
      l.placed.file = path.split(/[\\/]/).at(-1)!;
      d.dirty = true;
      change("placedLayerReplaceContents");
      return true;
    }
    // Edit > Define Pattern: `make` of a `pattern` class reference `using` the target document's selection, with a
    // `name`. Photoshop User Guide, "Create and manage patterns": "Select an area on any open image to use as a
    // pattern" (the command is unavailable with no selection, and it takes a rectangular selection with no feather);
    // the new pattern is added to the Patterns panel, the document itself unchanged (no history state).
    if (name === "make" && isPatternClass(ref(desc, "null"))) {
      if (!isDocumentSelection(ref(desc, "using"))) throw fail("make pattern: using must be the target document's selection");
      const presetName = value(desc, "name", "string") as string | undefined;
      if (presetName === undefined) throw fail("make pattern: a name is modelled only");
      const sel = d.selection;
      if (!sel || sel.ellipse || sel.width < 1 || sel.height < 1) throw unavailable();
      const shown = leaves(d.layers).filter((l) => l.visible && !isEmpty(layerBounds(l)));
      model.patternPresets.push({ name: presetName, width: sel.width, height: sel.height, color: [...(shown[0]?.color ?? [0, 0, 0, 0])] });
      return true;
    }
    // Layer > New Fill Layer / New Adjustment Layer: `make` of a `contentLayer` / `adjustmentLayer` class reference
    // `using` a descriptor of that class whose `type` object is the content (Photoshop User Guide, "Adjustment and
    // fill layers"; the batchPlay page's "make adjustmentLayer" example). The new layer goes above the active layer
    // and becomes the active one; it has a layer mask revealing everything ("By default, adjustment layers and fill
    // layers have layer masks", same page). A fill layer covers the canvas; an adjustment layer has no pixels.
    const contentRef = ref(desc, "null");
    const contentClass = contentRef?.parts.length === 1 ? s(contentRef.parts[0]!.desiredClass) : "";
    if (name === "make" && contentRef?.parts[0]?.form === "class" && CONTENT_CLASSES[contentClass]) {
      const using = desc.item(k("using"));
      if (using?.type !== "object" || s(using.classID!) !== contentClass) throw fail(`make ${contentClass}: using must be a ${contentClass} object`);
      const content = contentOf(contentClass, (using.value as StubActionDescriptor).item(k("type")));
      const fill = contentClass === "contentLayer";
      const l: FakeLayer = {
        id: model.newLayerId(), name: `${CONTENT_NAMES[content.class]} 1`, kind: fill ? "fill" : "adjustment", psKind: CONTENT_KINDS[content.class], visible: true, opacity: 100,
        ...(fill ? { left: 0, top: 0, right: d.width, bottom: d.height } : { left: 0, top: 0, right: 0, bottom: 0 }),
        color: colorOf(content), content, mask: { enabled: true, linked: true, density: 100, feather: 0, reveals: "all" },
      };
      const above = layerEntries(d.layers).find((e) => e.layer.id === d.active[0])?.layer;
      const list = above ? parentList(d.layers, above) : d.layers;
      list.splice(above ? list.indexOf(above) : 0, 0, l);
      d.active = [l.id];
      d.dirty = true;
      change(`make ${contentClass} ${content.class}`);
      return true;
    }
    // Layer Content Options / Layer > Change Layer Content: `set` the target content or adjustment layer `to` a new
    // content. A fill goes on a fill layer only, an adjustment on an adjustment layer only.
    if (name === "set" && contentRef?.parts[0]?.form === "enumerated" && s(contentRef.parts[0].value) === "targetEnum" && CONTENT_CLASSES[contentClass]) {
      const l = active(d);
      const content = contentOf(contentClass, desc.item(k("to")));
      if (!l.content || l.kind !== (contentClass === "contentLayer" ? "fill" : "adjustment")) throw unavailable();
      l.content = content;
      l.psKind = CONTENT_KINDS[content.class];
      l.color = colorOf(content);
      d.dirty = true;
      change(`set ${contentClass} ${content.class}`);
      return true;
    }
    // Layer > Layer Mask > Reveal All / Hide All / Reveal Selection: `make` a channel at the mask channel `using`
    // the userMaskEnabled enumeration. Reveal Selection uses the selection up (it is deselected).
    if (name === "make" && isMask(ref(desc, "at"))) {
      const using = desc.item(k("using"));
      if (s(value(desc, "new", "class") as number) !== "channel" || using?.type !== "enumerated" || s(using.enumType!) !== "userMaskEnabled") throw fail("make mask: new must be the channel class, using a userMaskEnabled value");
      const l = active(d);
      if (l.mask || l.kind === "background") throw unavailable();
      const how = s(using.value as number);
      if (how === "revealSelection" && !d.selection) throw unavailable();
      const sel = d.selection;
      const reveals = how === "revealAll" ? "all" : how === "hideAll" ? "none" : { left: sel!.x, top: sel!.y, right: sel!.x + sel!.width, bottom: sel!.y + sel!.height };
      if (!["revealAll", "hideAll", "revealSelection"].includes(how)) throw fail(`make mask using ${how}`);
      l.mask = { enabled: true, linked: true, density: 100, feather: 0, reveals };
      if (how === "revealSelection") d.selection = null;
      change(`make mask ${how}`);
      return true;
    }
    // Layer > Layer Mask > Delete / Apply: `delete` the mask channel, with `apply: true` to apply it first.
    if (name === "delete" && isMask(ref(desc, "null"))) {
      const l = active(d);
      if (!l.mask) throw unavailable();
      if (value(desc, "apply", "boolean") === true) {
        const keep = layerBounds({ ...l, mask: { ...l.mask, enabled: true } });
        Object.assign(l, keep);
      }
      delete l.mask;
      change(`delete mask${value(desc, "apply", "boolean") === true ? " (apply)" : ""}`);
      return true;
    }
    // The mask settings of the Properties panel: `set` the target layer `to` a layer descriptor with userMaskEnabled,
    // userMaskLinked, userMaskDensity (percentUnit) and userMaskFeather (pixelsUnit).
    if (name === "set" && isTarget(ref(desc, "null"))) {
      const to = desc.item(k("to"));
      if (to?.type !== "object" || s(to.classID!) !== "layer") throw fail("set layer: to must be a layer object");
      const props = to.value as StubActionDescriptor;
      const l = active(d);
      if (!l.mask) throw unavailable();
      const known = ["userMaskEnabled", "userMaskLinked", "userMaskDensity", "userMaskFeather"];
      for (const [key] of props.items) if (!known.includes(s(key))) throw fail(`set layer ${s(key)} is not modelled`);
      const enabled = value(props, "userMaskEnabled", "boolean") as boolean | undefined;
      const linked = value(props, "userMaskLinked", "boolean") as boolean | undefined;
      const density = value(props, "userMaskDensity", "unitDouble", "percentUnit") as number | undefined;
      const feather = value(props, "userMaskFeather", "unitDouble", "pixelsUnit") as number | undefined;
      if (enabled !== undefined) l.mask.enabled = enabled;
      if (linked !== undefined) l.mask.linked = linked;
      if (density !== undefined) l.mask.density = density;
      if (feather !== undefined) l.mask.feather = feather;
      change("set mask");
      return true;
    }
    // A layer's transparency as the selection: `set` the selection to it, or `add` it to (`to`), `subtract` it from
    // (`from`), `intersect` it with (`with`) the selection.
    const transparency = transparencyOf(d, ref(desc, name === "set" ? "to" : "null"));
    if (transparency && name === "set" && isSelection(ref(desc, "null"))) {
      d.selection = combine(d.selection, opaque(transparency), "replace");
      change("set selection to transparency");
      return true;
    }
    if (transparency && TRANSPARENCY_MODES[name]) {
      const [mode, key] = TRANSPARENCY_MODES[name]!;
      if (!isSelection(ref(desc, key))) throw fail(`${name} transparency: ${key} must be the selection`);
      d.selection = combine(d.selection, opaque(transparency), mode);
      change(`${name} transparency`);
      return true;
    }
    // The magic wand: the selection set to (or combined with) the pixels near the colour at a `paint` point, of the
    // active layer or, with `merged`, of every visible layer.
    const to = desc.item(k("to"));
    if (WAND_MODES[name] && isSelection(ref(desc, "null")) && to?.type === "object" && s(to.classID!) === "paint") {
      const point = to.value as StubActionDescriptor;
      const [x, y] = [Math.floor(pixels(d, "horizontal", point)), Math.floor(pixels(d, "vertical", point))];
      const tolerance = value(desc, "tolerance", "integer") as number;
      const contiguous = value(desc, "contiguous", "boolean") !== false;
      const merged = value(desc, "merged", "boolean") === true;
      if (tolerance === undefined || tolerance < 0 || tolerance > 255) throw new Error("Illegal argument: tolerance");
      const source = merged ? leaves(d.layers).filter((l) => l.visible) : [active(d)];
      d.selection = combine(d.selection, wandBounds(d, source, x, y, tolerance, contiguous), WAND_MODES[name]!);
      change(`${name} magic wand`);
      return true;
    }
    // Edit > Free Transform of the target layer about `position` (freeTransformCenterState QCSIndependent): scale by
    // `width` / `height` percent (negative mirrors), turn by `angle` degrees clockwise, then move by `offset`.
    if (name === "transform" && isTarget(ref(desc, "null"))) {
      const center = desc.item(k("freeTransformCenterState"));
      if (center?.type !== "enumerated" || s(center.value as number) !== "QCSIndependent") throw fail("transform: only about an independent reference point is modelled");
      const position = value(desc, "position", "object") as StubActionDescriptor;
      const offset = value(desc, "offset", "object") as StubActionDescriptor;
      const [ax, ay] = [pixels(d, "horizontal", position), pixels(d, "vertical", position)];
      const [dx, dy] = [pixels(d, "horizontal", offset), pixels(d, "vertical", offset)];
      const sx = ((value(desc, "width", "unitDouble", "percentUnit") as number | undefined) ?? 100) / 100;
      const sy = ((value(desc, "height", "unitDouble", "percentUnit") as number | undefined) ?? 100) / 100;
      const angle = (value(desc, "angle", "unitDouble", "angleUnit") as number | undefined) ?? 0;
      const interpolation = desc.item(k("interpolation"));
      if (interpolation?.type !== "enumerated" || !["nearestNeighbor", "bilinear", "bicubic"].includes(s(interpolation.value as number))) throw fail("transform: interpolation must be an interpolationType");
      const l = active(d);
      if (l.kind === "background") throw unavailable();
      mapLayers(
        [l],
        ([x, y]) => {
          const [tx, ty] = turn([ax + (x - ax) * sx, ay + (y - ay) * sy], angle, [ax, ay]);
          return [tx + dx, ty + dy];
        },
        true,
      );
      d.dirty = true;
      change("transform");
      return true;
    }
    // Layer > Merge Layers of the active layers: one pixel layer where the top-most was, over all of them, named
    // after the top-most; hidden layers are dropped.
    if (name === "mergeLayersNew") {
      const chosen = layerEntries(d.layers).filter((e) => d.active.includes(e.layer.id)).map((e) => e.layer);
      if (chosen.length < 2) throw unavailable();
      const shown = chosen.flatMap((l) => leaves([l])).filter((l) => l.visible && !isEmpty(layerBounds(l)));
      const bounds = shown.length === 0 ? { left: 0, top: 0, right: 0, bottom: 0 } : shown.map(layerBounds).reduce(union);
      const merged: FakeLayer = { id: model.newLayerId(), name: chosen[0]!.name, kind: "pixel", visible: true, opacity: 100, ...bounds, color: shown[0]?.color ?? [0, 0, 0, 0] };
      const list = parentList(d.layers, chosen[0]!);
      list.splice(list.indexOf(chosen[0]!), 0, merged);
      for (const l of chosen) {
        const from = parentList(d.layers, l);
        if (from.includes(l)) from.splice(from.indexOf(l), 1);
      }
      d.active = [merged.id];
      d.dirty = true;
      change("mergeLayersNew");
      return true;
    }
    return false;
  };
}
