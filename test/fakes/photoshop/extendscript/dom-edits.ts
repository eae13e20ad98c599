/*
 * The DOM members the edit operations use, added to the stub's layers, documents and selections (dom.ts). Each
 * rule follows the Photoshop JavaScript Reference (mirrored at
 * https://theiviaxx.github.io/photoshop-docs/Photoshop/<Class>/<member>.html), cited per member. Every change
 * records the call (`effects.calls`) and, outside Document.suspendHistory, a history state of its own
 * (`effects.history`): what the tests check "one edit, one history state" against.
 */
import { type Context, runInContext } from "node:vm";
import type { FakeDocument, FakeModel } from "../model.js";
import { type Bounds, type FakeLayer, layerBounds, layerEntries, parentList, render } from "../layers.js";
import { boundsOf, boxOf, clipLayers, intersect, isEmpty, leaves, mapLayers, selectionOf, subtract, turn, union } from "../geometry.js";
import { clip } from "./paths.js";
import { addState, keep } from "./history-panel.js";

type Enumerator = { toString(): string };
type Enumeration = Record<string, Enumerator>;

export interface EditStub {
  model: FakeModel;
  fail(message: string): Error;
  /** A change: recorded as a call, and as a history state of its own unless Document.suspendHistory is running. */
  change(call: string): void;
  realm(): Context;
  /** An array of the script's realm (one it may iterate and index). */
  realmArray<T>(items: readonly T[]): T[];
  /** A length argument in pixels (a UnitValue, or a plain number in the ruler units). */
  px(d: FakeDocument, v: unknown): number;
  layerObject(d: FakeDocument, l: FakeLayer): object;
  docObject(d: FakeDocument): object;
  enums: Record<
    "ElementPlacement" | "BlendMode" | "ColorBlendMode" | "AnchorPosition" | "Direction" | "ResampleMethod" | "TrimType" | "RasterizeType" | "NoiseDistribution" | "AdjustmentReference",
    Enumeration
  >;
  history: { suspended: boolean; states: string[] };
}

/** Copies members with their getters and setters (a spread would call the getters). */
export function addMembers<T extends object>(target: T, members: object): T {
  return Object.defineProperties(target, Object.getOwnPropertyDescriptors(members));
}

/** The DOM's BlendMode constants by the ActionManager's blend mode ids (BlendMode; the `mode` key). */
export const BLEND_IDS: Record<string, string> = {
  PASSTHROUGH: "passThrough", NORMAL: "normal", DISSOLVE: "dissolve", DARKEN: "darken", MULTIPLY: "multiply",
  COLORBURN: "colorBurn", LINEARBURN: "linearBurn", DARKERCOLOR: "darkerColor", LIGHTEN: "lighten", SCREEN: "screen",
  COLORDODGE: "colorDodge", LINEARDODGE: "linearDodge", LIGHTERCOLOR: "lighterColor", OVERLAY: "overlay",
  SOFTLIGHT: "softLight", HARDLIGHT: "hardLight", VIVIDLIGHT: "vividLight", LINEARLIGHT: "linearLight",
  PINLIGHT: "pinLight", HARDMIX: "hardMix", DIFFERENCE: "difference", EXCLUSION: "exclusion",
  SUBTRACTION: "blendSubtraction", DIVIDE: "blendDivide", HUE: "hue", SATURATION: "saturation", COLORBLEND: "color",
  LUMINOSITY: "luminosity",
};
/** ColorBlendMode (Selection.fill's mode): the blend modes without PASSTHROUGH, COLOR and SUBTRACT spelled so, BEHIND and CLEAR. */
export const COLOR_BLEND_MODES = [...Object.keys(BLEND_IDS).filter((m) => !["PASSTHROUGH", "COLORBLEND", "SUBTRACTION"].includes(m)), "COLOR", "SUBTRACT", "BEHIND", "CLEAR"];

const name = (e: unknown): string => String(e).replace(/^\w+\./, "");
const hasBackground = (d: FakeDocument): boolean => d.layers.at(-1)?.kind === "background";
const activeLayer = (d: FakeDocument): FakeLayer | undefined => layerEntries(d.layers).find((e) => e.layer.id === d.active[0])?.layer;
const unavailable = (): Error => new Error("General Photoshop error occurred. The command is not currently available.");

/** A deep copy of a layer with fresh ids (a duplicate is a new layer, and so is each layer in a copied group). */
function copyLayer(model: FakeModel, l: FakeLayer): FakeLayer {
  const copy: FakeLayer = { ...structuredClone({ ...l, children: undefined }), id: model.newLayerId() };
  if (l.children) copy.children = l.children.map((c) => copyLayer(model, c));
  else delete copy.children;
  return copy;
}

/** ArtLayer / LayerSet members the edits use. */
export function layerEditMembers(s: EditStub, d: FakeDocument, l: FakeLayer): object {
  const group = l.children !== undefined;
  const { ElementPlacement, BlendMode } = s.enums;
  return {
    // ArtLayer.allLocked / LayerSet.allLocked: Lock All. The Background layer cannot be fully locked.
    get allLocked() { return l.locked === true; },
    set allLocked(v: boolean) {
      if (l.kind === "background" && v) throw unavailable();
      l.locked = v === true;
      s.change(`${l.id}.allLocked = ${v}`);
    },
    // ArtLayer.fillOpacity: the interior opacity, 0–100; LayerSet has none.
    get fillOpacity() {
      if (group) throw s.fail("LayerSet.fillOpacity does not exist");
      return l.fillOpacity ?? 100;
    },
    set fillOpacity(v: number) {
      if (group) throw s.fail("LayerSet.fillOpacity does not exist");
      l.fillOpacity = Number(v);
      s.change(`${l.id}.fillOpacity = ${v}`);
    },
    get opacity() { return l.opacity; },
    set opacity(v: number) {
      if (l.kind === "background") throw unavailable();
      l.opacity = Number(v);
      s.change(`${l.id}.opacity = ${v}`);
    },
    // ArtLayer.blendMode (BlendMode); PASSTHROUGH exists only for a LayerSet.
    get blendMode(): Enumerator {
      const id = l.blendMode ?? (group ? "passThrough" : "normal");
      return BlendMode[Object.keys(BLEND_IDS).find((k) => BLEND_IDS[k] === id)!]!;
    },
    set blendMode(v: Enumerator) {
      const id = BLEND_IDS[name(v)];
      if (id === undefined || (id === "passThrough" && !group) || l.kind === "background") throw new Error(`Illegal argument - argument 1: ${String(v)}`);
      l.blendMode = id;
      s.change(`${l.id}.blendMode = ${name(v)}`);
    },
    // ArtLayer.remove(): deletes the layer (a LayerSet with everything in it).
    remove() {
      const list = parentList(d.layers, l);
      list.splice(list.indexOf(l), 1);
      d.active = d.active.filter((id) => layerEntries(d.layers).some((e) => e.layer.id === id));
      d.dirty = true;
      s.change(`${l.id}.remove()`);
    },
    /**
     * ArtLayer.merge(): "Merges the layer down. This removes the layer from the document. Returns a reference to the
     * art layer that this layer is merged into." The layer below stays, with its id, name, mask, blend mode and
     * opacity; its pixels take the merged layer's over them (the model's solid rectangles: the box around both, in
     * the upper layer's colour where the lower one is empty). Only a shown layer over a shown layer is modelled.
     */
    merge() {
      const list = parentList(d.layers, l);
      const below = list[list.indexOf(l) + 1];
      if (group || !below || below.children) throw s.fail("ArtLayer.merge: only a layer onto the layer directly below it is modelled");
      if (!l.visible || !below.visible) throw s.fail("ArtLayer.merge with a hidden layer is not modelled");
      if (below.locked) throw unavailable();
      const [top, under] = [layerBounds({ ...l, mask: undefined }), layerBounds({ ...below, mask: undefined })];
      if (!isEmpty(top)) {
        const box = isEmpty(under) ? top : union(top, under);
        Object.assign(below, box, { color: l.color });
      }
      list.splice(list.indexOf(l), 1);
      d.active = [below.id];
      d.dirty = true;
      s.change(`${l.id}.merge()`);
      return s.layerObject(d, below);
    },
    // ArtLayer.rasterize(target): "Converts the targeted content in the layer into a flat, raster image" (ENTIRELAYER:
    // "Rasterizes all vector data on the layer"): the layer becomes a pixel layer (LayerKind.NORMAL) with the same
    // pixels. A fill layer's are its colour over the canvas (its bounds), so the pixel layer keeps both.
    rasterize(target: Enumerator) {
      if (group || name(target) !== "ENTIRELAYER") throw s.fail(`rasterize(${String(target)}) is not modelled`);
      if (l.kind === "pixel" || l.kind === "background") throw unavailable();
      l.kind = "pixel";
      delete l.psKind;
      s.change(`${l.id}.rasterize(${name(target)})`);
    },
    /**
     * ArtLayer.duplicate(relativeObject, insertionLocation): with no arguments a copy directly above the layer in
     * its document, named "<name> copy"; into another document at its top (the layer.place operation).
     */
    duplicate(into?: object, placement?: Enumerator) {
      if (into === undefined) {
        const copy = copyLayer(s.model, l);
        if (copy.kind === "background") copy.kind = "pixel";
        copy.name = `${l.name} copy`;
        const list = parentList(d.layers, l);
        list.splice(list.indexOf(l), 0, copy);
        d.active = [copy.id];
        d.dirty = true;
        s.change(`${l.id}.duplicate()`);
        return s.layerObject(d, copy);
      }
      const dest = s.model.docs.find((x) => s.docObject(x) === into);
      if (!dest || placement !== ElementPlacement["PLACEATBEGINNING"]) throw s.fail("ArtLayer.duplicate: only into a document, at its beginning");
      const copy: FakeLayer = { ...l, id: s.model.newLayerId(), kind: l.kind === "background" ? "pixel" : l.kind };
      delete copy.children;
      dest.layers.unshift(copy);
      dest.dirty = true;
      return s.layerObject(dest, copy);
    },
    /**
     * ArtLayer.move(relativeObject, insertionLocation): PLACEBEFORE is directly above the relative layer,
     * PLACEAFTER directly below it, INSIDE into a LayerSet (the scripts use it on empty groups only, where its place
     * inside cannot matter). Nothing moves below the Background layer, the Background layer does not move, and a
     * group cannot go inside itself.
     */
    move(target: { id: number }, placement: Enumerator) {
      const to = layerEntries(d.layers).find((e) => e.layer.id === target.id)?.layer;
      const how = name(placement);
      if (!to || !["PLACEBEFORE", "PLACEAFTER", "INSIDE"].includes(how)) throw s.fail(`ArtLayer.move with ${String(placement)} is not modelled`);
      if (to === l || (group && layerEntries(l.children!).some((e) => e.layer === to))) throw new Error("General Photoshop error occurred. The layer cannot be moved inside itself.");
      if (l.kind === "background" || (how === "PLACEAFTER" && to.kind === "background")) throw unavailable();
      if (how === "INSIDE" && !to.children) throw new Error("Illegal argument - argument 1: not a layer set");
      const from = parentList(d.layers, l);
      from.splice(from.indexOf(l), 1);
      if (how === "INSIDE") to.children!.unshift(l);
      else {
        const list = parentList(d.layers, to);
        list.splice(list.indexOf(to) + (how === "PLACEAFTER" ? 1 : 0), 0, l);
      }
      d.dirty = true;
      s.change(`${l.id}.move(${to.id}, ${how})`);
    },
  };
}

/** The stored selections of Selection.store (alpha channels), by channel object. */
const stored = new WeakMap<object, FakeDocument["selection"]>();

/** The colour channels of an RGB document, by Channel.name. */
const COMPONENT_CHANNELS = ["Red", "Green", "Blue"];
/** Each document's active channels by name (all colour channels unless a script chose some). */
const activeChannels = new WeakMap<FakeDocument, string[]>();
export const activeChannelsOf = (d: FakeDocument): string[] => activeChannels.get(d) ?? COMPONENT_CHANNELS;
/** One Channel object per name, so scripts may compare them. */
const channelObjects = new Map<string, { name: string; typename: string }>();
const channelObject = (n: string): { name: string; typename: string } => {
  const c = channelObjects.get(n) ?? { name: n, typename: "Channel" };
  channelObjects.set(n, c);
  return c;
};

/** Document members the edits use. */
export function documentEditMembers(s: EditStub, d: FakeDocument): object {
  const { AnchorPosition, Direction, ResampleMethod, TrimType } = s.enums;
  const shiftSelection = (dx: number, dy: number): void => {
    if (d.selection) d.selection = clip(d, d.selection.x + dx, d.selection.y + dy, d.selection.x + d.selection.width + dx, d.selection.y + d.selection.height + dy);
  };
  const backgroundFillsCanvas = (): void => {
    const bg = hasBackground(d) ? d.layers.at(-1)! : undefined;
    if (bg) Object.assign(bg, { left: 0, top: 0, right: d.width, bottom: d.height });
  };
  const changed = (call: string): void => {
    d.dirty = true;
    s.change(call);
  };
  return {
    /**
     * Document.suspendHistory(historyString, javaScriptString): runs the code and makes everything it did one
     * history state named historyString.
     */
    suspendHistory(historyName: string, code: string) {
      if (s.history.suspended) throw s.fail("suspendHistory inside suspendHistory is not modelled");
      const before = keep(d);
      s.history.suspended = true;
      try {
        runInContext(String(code), s.realm());
      } finally {
        s.history.suspended = false;
      }
      s.history.states.push(String(historyName));
      d.history = [...(d.history ?? []), String(historyName)];
      addState(d, String(historyName), before);
    },
    // Document.resizeImage(width, height, resolution, resampleMethod): every layer and the selection scale with it.
    resizeImage(w: unknown, h: unknown, resolution: number, method: Enumerator) {
      const [width, height] = [s.px(d, w), s.px(d, h)];
      if (!ResampleMethod[name(method)]) throw s.fail(`resizeImage with ${String(method)}`);
      const [fx, fy] = [width / d.width, height / d.height];
      mapLayers(d.layers, ([x, y]) => [x * fx, y * fy]);
      if (d.selection) d.selection = selectionOf(boxOf([[d.selection.x * fx, d.selection.y * fy], [(d.selection.x + d.selection.width) * fx, (d.selection.y + d.selection.height) * fy]]));
      Object.assign(d, { width, height, resolution });
      changed(`resizeImage(${width}, ${height}, ${resolution}, ${name(method)})`);
    },
    /**
     * Document.resizeCanvas(width, height, anchor): the old canvas stays at the anchor (a centred odd difference
     * rounds as the bridge does: the checklist confirms Photoshop's rounding); layers keep their pixels, the
     * Background layer fills the new canvas (with the background colour), the selection moves with the image.
     */
    resizeCanvas(w: unknown, h: unknown, anchor: Enumerator) {
      const [width, height] = [s.px(d, w), s.px(d, h)];
      const key = name(anchor);
      if (!AnchorPosition[key]) throw s.fail(`resizeCanvas with ${String(anchor)}`);
      const fx = key.endsWith("LEFT") ? 0 : key.endsWith("RIGHT") ? 1 : 0.5;
      const fy = key.startsWith("TOP") ? 0 : key.startsWith("BOTTOM") ? 1 : 0.5;
      const [dx, dy] = [Math.round((width - d.width) * fx), Math.round((height - d.height) * fy)];
      mapLayers(d.layers, ([x, y]) => [x + dx, y + dy]);
      Object.assign(d, { width, height });
      backgroundFillsCanvas();
      shiftSelection(dx, dy);
      changed(`resizeCanvas(${width}, ${height}, ${key})`);
    },
    // Document.crop(bounds): the canvas becomes bounds (left, top, right, bottom); what lies outside is deleted.
    crop(bounds: ArrayLike<unknown>) {
      const [left, top, right, bottom] = [0, 1, 2, 3].map((i) => s.px(d, bounds[i]));
      mapLayers(d.layers, ([x, y]) => [x - left!, y - top!]);
      Object.assign(d, { width: right! - left!, height: bottom! - top! });
      clipLayers(d.layers, { left: 0, top: 0, right: d.width, bottom: d.height });
      shiftSelection(-left!, -top!);
      changed(`crop([${left}, ${top}, ${right}, ${bottom}])`);
    },
    /**
     * Document.rotateCanvas(angle): clockwise degrees; the canvas grows to the turned image's bounding box, the
     * Background layer fills it (new corners in the background colour).
     */
    rotateCanvas(angle: number) {
      const c: [number, number] = [d.width / 2, d.height / 2];
      const turned = [[0, 0], [d.width, 0], [d.width, d.height], [0, d.height]].map((p) => turn(p as [number, number], angle, c));
      const [left, top] = [Math.min(...turned.map((p) => p[0])), Math.min(...turned.map((p) => p[1]))];
      const size = (values: number[]): number => Math.ceil(Math.max(...values) - Math.min(...values) - 1e-6);
      const canvas = { left: 0, top: 0, right: size(turned.map((p) => p[0])), bottom: size(turned.map((p) => p[1])) };
      const f = (p: [number, number]): [number, number] => {
        const [x, y] = turn(p, angle, c);
        return [x - left, y - top];
      };
      mapLayers(d.layers, f);
      if (d.selection) {
        const b = boundsOf(d.selection);
        d.selection = selectionOf(boxOf([[b.left, b.top], [b.right, b.top], [b.right, b.bottom], [b.left, b.bottom]].map((p) => f(p as [number, number]))));
      }
      Object.assign(d, { width: canvas.right - canvas.left, height: canvas.bottom - canvas.top });
      backgroundFillsCanvas();
      changed(`rotateCanvas(${angle})`);
    },
    // Document.flipCanvas(direction): mirrors every layer and the selection.
    flipCanvas(direction: Enumerator) {
      const horizontal = name(direction) === "HORIZONTAL";
      if (!Direction[name(direction)]) throw s.fail(`flipCanvas(${String(direction)})`);
      const f = ([x, y]: [number, number]): [number, number] => (horizontal ? [d.width - x, y] : [x, d.height - y]);
      mapLayers(d.layers, f);
      if (d.selection) {
        const b = boundsOf(d.selection);
        d.selection = selectionOf(boxOf([f([b.left, b.top]), f([b.right, b.bottom])]));
      }
      changed(`flipCanvas(${name(direction)})`);
    },
    /**
     * Document.duplicate(name, mergeLayersOnly): a new, unsaved document with the same layers (and their ids, which
     * are per document); it becomes the active document.
     */
    duplicate(copyName: string, mergeLayersOnly?: boolean) {
      if (mergeLayersOnly) throw s.fail("Document.duplicate with mergeLayersOnly is not modelled");
      const copy = s.model.add({ name: String(copyName), width: d.width, height: d.height, resolution: d.resolution ?? 72, layers: structuredClone(d.layers), active: [...d.active], selection: null, dirty: true });
      s.model.switched();
      s.change(`duplicate(${copyName})`);
      return s.docObject(copy);
    },
    /**
     * Document.flatten(): one Background layer of the canvas's size; hidden layers are dropped, and what was
     * transparent is white.
     */
    flatten() {
      const shown = leaves(d.layers).filter((l) => l.visible && !isEmpty(layerBounds(l)));
      const top = shown[0];
      const bg: FakeLayer = { id: s.model.newLayerId(), name: "Background", kind: "background", visible: true, opacity: 100, left: 0, top: 0, right: d.width, bottom: d.height, color: top && top.color[3] === 255 && shown.length === 1 ? top.color : [255, 255, 255, 255] };
      d.layers = [bg];
      d.active = [bg.id];
      changed("flatten()");
    },
    /**
     * Document.trim(type, top, left, bottom, right): with TRANSPARENT, crops away the transparent edges of the
     * composite (the visible layers' bounds).
     */
    trim(type: Enumerator, ...sides: boolean[]) {
      if (!TrimType[name(type)] || name(type) !== "TRANSPARENT" || sides.length !== 4 || sides.some((v) => v !== true)) throw s.fail("trim: only TRANSPARENT on every side is modelled");
      const canvas = { left: 0, top: 0, right: d.width, bottom: d.height };
      const parts = leaves(d.layers).filter((l) => l.visible).map(layerBounds).map((b) => intersect(b, canvas)).filter((b): b is Bounds => b !== null);
      if (parts.length === 0) throw unavailable();
      const keep = parts.reduce(union);
      mapLayers(d.layers, ([x, y]) => [x - keep.left, y - keep.top]);
      Object.assign(d, { width: keep.right - keep.left, height: keep.bottom - keep.top });
      shiftSelection(-keep.left, -keep.top);
      changed(`trim(TRANSPARENT)`);
    },
    // Document.channels: Channels.add() makes an alpha channel; Channel.remove() deletes it.
    get channels() {
      return {
        add() {
          const channel = { remove() { stored.delete(channel); } };
          stored.set(channel, null);
          return channel;
        },
      };
    },
    /**
     * Document.componentChannels / activeChannels: the colour channels (Channel objects named Red, Green, Blue), and
     * the ones adjustments act on (ArtLayer.adjustLevels and adjustCurves change the active channels only).
     */
    get componentChannels() { return s.realmArray(COMPONENT_CHANNELS.map(channelObject)); },
    get activeChannels() { return s.realmArray(activeChannelsOf(d).map(channelObject)); },
    set activeChannels(v: ArrayLike<{ name: string }>) {
      const names = Array.from(v, (c) => String(c?.name));
      if (names.length === 0 || names.some((n) => !COMPONENT_CHANNELS.includes(n))) throw s.fail(`activeChannels = [${names.join(", ")}]: only colour channels are modelled`);
      activeChannels.set(d, names);
    },
  };
}

/** Selection members the edits use. */
export function selectionEditMembers(s: EditStub, d: FakeDocument): object {
  const { ColorBlendMode } = s.enums;
  const canvas = (): Bounds => ({ left: 0, top: 0, right: d.width, bottom: d.height });
  const need = (): NonNullable<FakeDocument["selection"]> => {
    if (!d.selection) throw unavailable();
    return d.selection;
  };
  const grow = (by: number): void => {
    const b = boundsOf(need());
    d.selection = clip(d, b.left - by, b.top - by, b.right + by, b.bottom + by);
  };
  return {
    // Selection.invert(): what was not selected (the bounds of the canvas with the old box taken out).
    invert() {
      d.selection = selectionOf(subtract(canvas(), boundsOf(need())));
      s.change("selection.invert()");
    },
    // Selection.contract(by): shrinks it by `by` pixels on every side (1–500 px, as Select > Modify > Contract).
    contract(by: unknown) {
      const px = s.px(d, by);
      if (!(px >= 1 && px <= 500)) throw new Error(`Illegal argument - argument 1: contract by ${px} px is outside 1-500 px`);
      const b = boundsOf(need());
      d.selection = selectionOf({ left: b.left + px, top: b.top + px, right: b.right - px, bottom: b.bottom - px });
      s.change(`selection.contract(${px})`);
    },
    /**
     * Selection.feather(by): softens the edge over `by` pixels on both sides of it. A selection is pixel-based with
     * 8-bit transparency and its bounds are "the bounding rectangle of the entire selection" (Photoshop UXP
     * reference, Selection: `bounds`), so they take in the partly selected pixels outside the old edge: the box
     * grows by the radius, rounded up, within the canvas.
     */
    feather(by: unknown) {
      const px = s.px(d, by);
      if (!(px > 0 && px <= 1000)) throw new Error(`Illegal argument - argument 1: feather by ${px} px is outside 0.1-1000 px`);
      grow(Math.ceil(px));
      s.change(`selection.feather(${px})`);
    },
    // Selection.smooth(radius): rounds the corners; the bounds stay.
    smooth(radius: number) {
      need();
      if (!(radius >= 1 && radius <= 500)) throw new Error(`Illegal argument - argument 1: radius ${radius}`);
      s.change(`selection.smooth(${radius})`);
    },
    /**
     * Selection.selectBorder(width): a band `width` wide centred on the old edge (Photoshop User Guide, "Select a
     * band of pixels around a selection": a 20-pixel border extends 10 pixels on each side of the edge).
     */
    selectBorder(width: unknown) {
      const px = s.px(d, width);
      if (!(px >= 1 && px <= 200)) throw new Error(`Illegal argument - argument 1: border ${px} px is outside 1-200 px`);
      grow(Math.ceil(px / 2));
      if (d.selection) delete d.selection.ellipse;
      s.change(`selection.selectBorder(${px})`);
    },
    // Selection.clear() (Edit > Clear): the selected pixels of the active layer become transparent.
    clear() {
      const sel = need();
      const l = activeLayer(d);
      if (!l || l.children) throw unavailable();
      const left = subtract({ left: l.left, top: l.top, right: l.right, bottom: l.bottom }, boundsOf(sel));
      Object.assign(l, left ?? { left: 0, top: 0, right: 0, bottom: 0 });
      d.dirty = true;
      s.change("selection.clear()");
    },
    /**
     * Selection.fill(fillType, mode, opacity, preserveTransparency): paints the selection of the active layer
     * (opacity 1–100). The model's layers are solid colours, so the layer takes the colour and grows to cover the
     * selection; an empty layer takes the opacity as its colour's alpha.
     */
    fill(color: { rgb: { red: number; green: number; blue: number; hexValue: string } }, mode?: Enumerator, opacity?: number, preserve?: boolean) {
      const sel = need();
      const l = activeLayer(d);
      if (!l || l.children) throw unavailable();
      if (mode !== undefined && !ColorBlendMode[name(mode)]) throw s.fail(`Selection.fill with ${String(mode)}`);
      const o = opacity ?? 100;
      if (!(o >= 1 && o <= 100)) throw new Error(`Illegal argument - argument 3: opacity ${o} is outside 1-100`);
      const rgb = color.rgb;
      const was = { left: l.left, top: l.top, right: l.right, bottom: l.bottom };
      const painted = intersect(boundsOf(sel), canvas())!;
      const empty = isEmpty(was);
      Object.assign(l, empty ? painted : union(was, painted));
      l.color = [rgb.red, rgb.green, rgb.blue, empty ? Math.round((255 * o) / 100) : l.color[3]];
      void preserve;
      d.dirty = true;
      s.change(`selection.fill(#${[rgb.red, rgb.green, rgb.blue].map((v) => v.toString(16).padStart(2, "0")).join("")}, ${mode === undefined ? "NORMAL" : name(mode)}, ${o})`);
    },
    // Selection.store(into) / load(from): keeps the selection in an alpha channel, and makes it the selection again.
    store(into: object) {
      if (!stored.has(into)) throw s.fail("Selection.store into something that is not a channel");
      stored.set(into, structuredClone(d.selection));
    },
    load(from: object) {
      if (!stored.has(from)) throw s.fail("Selection.load from something that is not a channel");
      d.selection = structuredClone(stored.get(from) ?? null);
      s.change("selection.load()");
    },
  };
}

/**
 * The pixels a magic wand selects at (x, y) on `source` (RGBA per channel within `tolerance`): the region connected
 * to the point (4-neighbours) when contiguous, every such pixel otherwise; as a box.
 */
export function wandBounds(d: FakeDocument, source: FakeLayer[], x: number, y: number, tolerance: number, contiguous: boolean): Bounds | null {
  const pixels = render({ left: 0, top: 0, right: d.width, bottom: d.height }, source, 1);
  const at = (px: number, py: number): number[] => pixels.argbAt(px, py);
  const seed = at(x, y);
  const near = (px: number, py: number): boolean => at(px, py).every((v, i) => Math.abs(v - seed[i]!) <= tolerance);
  let box: Bounds | null = null;
  const take = (px: number, py: number): void => {
    const b = { left: px, top: py, right: px + 1, bottom: py + 1 };
    box = box === null ? b : union(box, b);
  };
  if (!contiguous) {
    for (let py = 0; py < d.height; py++) for (let px = 0; px < d.width; px++) if (near(px, py)) take(px, py);
    return box;
  }
  const seen = new Uint8Array(d.width * d.height);
  const queue: Array<[number, number]> = [[x, y]];
  seen[y * d.width + x] = 1;
  while (queue.length > 0) {
    const [px, py] = queue.pop()!;
    take(px, py);
    for (const [nx, ny] of [[px + 1, py], [px - 1, py], [px, py + 1], [px, py - 1]] as const) {
      if (nx < 0 || ny < 0 || nx >= d.width || ny >= d.height || seen[ny * d.width + nx]) continue;
      seen[ny * d.width + nx] = 1;
      if (near(nx, ny)) queue.push([nx, ny]);
    }
  }
  return box;
}

