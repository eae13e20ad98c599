/*
 * A Photoshop DOM stub over the fake's model, for running the operations' ExtendScript. Each rule follows the
 * Photoshop JavaScript Reference (mirrored at https://theiviaxx.github.io/photoshop-docs/Photoshop/<Class>.html);
 * anything a script touches that is not modelled here is recorded as a failure, never answered with a guess.
 * Layers are the model's solid-colour rectangles; a selection is its bounding box or the ellipse in it (paths.ts).
 * ActionManager reads and events live in action-get.ts and action-run.ts.
 */
import { existsSync } from "node:fs";
import { basename, extname, resolve } from "node:path";
import type { Context } from "node:vm";
import type { FakeComp, FakeDocument, FakeModel, FakePath } from "../model.js";
import { type FakeLayer, layerBounds, layerEntries } from "../layers.js";
import { StubActionDescriptor, StubActionList, StubActionReference, type TypeIds, plainDescriptor, typeIds } from "./action.js";
import { actionEdit } from "./action-edit.js";
import { actionEffects } from "./action-effects.js";
import { actionFilter } from "./action-filters.js";
import { BLEND_IDS, COLOR_BLEND_MODES, type EditStub, addMembers, documentEditMembers, layerEditMembers, selectionEditMembers } from "./dom-edits.js";
import { layerFilterMembers } from "./dom-filters.js";
import { type StubQuirks, actionGet } from "./action-get.js";
import { actionRun } from "./action-run.js";
import { clip, ellipse, workPath } from "./paths.js";
import { readFakePsd, writeFakePsd } from "../psd-file.js";
import { realmArray } from "./realm.js";
import { activate, activeEntry, addState, entries, type PanelState } from "./history-panel.js";
import { RULER_UNITS, StubUnitValue, lengthPx, toRuler, unitValueFunction } from "./units.js";
import { STUB_FONTS, type TextStub, newText, textItem } from "./dom-text.js";

/** A decoded image the stub can open (app.open is synchronous; the fake decodes files before the script runs). */
export interface DecodedImage {
  width: number;
  height: number;
  resolution: number;
  /** RGBA, row-major. */
  data: Buffer;
  format: string;
}

/** What a script asked for beyond the model: pixmaps and event subscriptions (answered by the fake server). */
export interface PixmapRequest {
  documentId: number;
  layerId?: number;
  firstLayer?: number;
  lastLayer?: number;
  hidden: number[];
  scale: number;
  maxDimension: number;
  boundsOnly: boolean;
}

export interface StubEffects {
  pixmaps: PixmapRequest[];
  subscriptions: Array<{ event: string; subscribe: boolean }>;
  failures: string[];
  /** Every change a script made through the DOM or the ActionManager, in order (dom-edits.ts, action-edit.ts). */
  calls: string[];
  /** The history states a script made: one per suspendHistory, one per change made outside it. */
  history: string[];
  /** Every ActionManager event played, with its descriptor as plain data. */
  actions: Array<{ event: string; descriptor: Record<string, unknown> }>;
  /** Properties read from ArtLayer and LayerSet objects: what walking the DOM costs a script. */
  domLayerReads: number;
}

type Enumerator = { toString(): string };
function enumeration(name: string, values: readonly string[]): Record<string, Enumerator> {
  const out: Record<string, Enumerator> = {};
  for (const v of values) out[v] = { toString: () => `${name}.${v}` };
  return out;
}

// ArtLayer.kind (LayerKind): a Color Fill layer is SOLIDFILL, and so is a shape layer filled with a colour (the
// DOM has no kind of its own for a fill drawn through a vector mask).
const KIND_OF: Record<string, string> = { pixel: "NORMAL", background: "NORMAL", text: "TEXT", shape: "SOLIDFILL", fill: "SOLIDFILL", smartObject: "SMARTOBJECT", adjustment: "LEVELS" };

export interface Stub {
  globals: Record<string, unknown>;
  effects: StubEffects;
}

/** Builds the globals one script run sees. `realm` makes arrays the script may iterate. */
export function photoshopStub(model: FakeModel, realm: () => Context, images: Map<string, DecodedImage>, quirks: StubQuirks = {}): Stub {
  const effects: StubEffects = { pixmaps: [], subscriptions: [], failures: [], domLayerReads: 0, calls: [], history: [], actions: [] };
  const fail = (message: string): Error => {
    effects.failures.push(message);
    return new Error(`stub: ${message}`);
  };
  const ids: TypeIds = typeIds((m) => fail(m));
  const arr = (items: readonly unknown[]): unknown[] => realmArray(realm(), items);

  // Unknown property reads or writes fail: the stub is the list of what the scripts may use.
  const strict = <T extends object>(label: string, target: T): T =>
    new Proxy(target, {
      get(t, key, receiver) {
        if (label === "ArtLayer" || label === "LayerSet") effects.domLayerReads++;
        if (typeof key === "symbol" || key in t) return Reflect.get(t, key, receiver);
        throw fail(`${label}.${key} is not modelled`);
      },
      set(t, key, value, receiver) {
        if (typeof key !== "symbol" && !(key in t)) throw fail(`${label}.${key} cannot be set in the stub`);
        if (!Reflect.set(t, key, value, receiver)) throw fail(`${label}.${String(key)} is read-only`);
        return true;
      },
    });
  const collection = <T>(label: string, items: () => T[], extra: object = {}): unknown =>
    new Proxy(
      { ...extra },
      {
        get(t, key) {
          if (key === "length") return items().length;
          if (typeof key === "string" && /^\d+$/.test(key)) return items()[Number(key)];
          if (typeof key === "symbol" || key in t) return Reflect.get(t, key);
          throw fail(`${label}.${key} is not modelled`);
        },
      },
    );

  const Units = enumeration("Units", Object.keys(RULER_UNITS));
  const prefs = strict("Preferences", { rulerUnits: Units["INCHES"]!, typeUnits: enumeration("TypeUnits", ["POINTS"])["POINTS"]! });
  const ruler = (): string => RULER_UNITS[String(prefs.rulerUnits).replace("Units.", "") as keyof typeof RULER_UNITS];
  const res = (d: FakeDocument): number => d.resolution ?? 72;
  const len = (d: FakeDocument, px: number): StubUnitValue => new StubUnitValue(toRuler(px, ruler(), res(d)), ruler());
  const coord = (d: FakeDocument, px: number): number => toRuler(px, ruler(), res(d));

  const DialogModes = enumeration("DialogModes", ["NO", "ERROR", "ALL"]);
  const SaveOptions = enumeration("SaveOptions", ["DONOTSAVECHANGES", "SAVECHANGES", "PROMPTTOSAVECHANGES"]);
  const ElementPlacement = enumeration("ElementPlacement", ["PLACEATBEGINNING", "PLACEATEND", "PLACEBEFORE", "PLACEAFTER", "INSIDE"]);
  const LayerKind = enumeration("LayerKind", ["NORMAL", "TEXT", "SOLIDFILL", "GRADIENTFILL", "PATTERNFILL", "SMARTOBJECT", "LEVELS", "CURVES", "VIDEO", "LAYER3D",
    "BRIGHTNESSCONTRAST", "BLACKANDWHITE", "PHOTOFILTER", "SELECTIVECOLOR", "CHANNELMIXER", "EXPOSURE", "GRADIENTMAP", "VIBRANCE", "COLORBALANCE", "HUESATURATION", "INVERSION", "POSTERIZE", "THRESHOLD"]);
  const PathKind = enumeration("PathKind", ["WORKPATH", "NORMALPATH", "CLIPPINGPATH", "VECTORMASK", "TEXTMASK"]);
  const BlendMode = enumeration("BlendMode", Object.keys(BLEND_IDS));
  const ColorBlendMode = enumeration("ColorBlendMode", COLOR_BLEND_MODES);
  const AnchorPosition = enumeration("AnchorPosition", ["TOPLEFT", "TOPCENTER", "TOPRIGHT", "MIDDLELEFT", "MIDDLECENTER", "MIDDLERIGHT", "BOTTOMLEFT", "BOTTOMCENTER", "BOTTOMRIGHT"]);
  const Direction = enumeration("Direction", ["HORIZONTAL", "VERTICAL"]);
  const ResampleMethod = enumeration("ResampleMethod", ["NONE", "NEARESTNEIGHBOR", "BILINEAR", "BICUBIC", "BICUBICSHARPER", "BICUBICSMOOTHER", "BICUBICAUTOMATIC", "AUTOMATIC", "PRESERVEDETAILS"]);
  const TrimType = enumeration("TrimType", ["TRANSPARENT", "TOPLEFT", "BOTTOMRIGHT"]);
  const RasterizeType = enumeration("RasterizeType", ["ENTIRELAYER", "FILLCONTENT", "LAYERCLIPPINGPATH", "LINKEDLAYERS", "SHAPE", "TEXTCONTENTS", "VECTORMASK", "LAYERSTYLE"]);
  const DocumentMode = enumeration("DocumentMode", ["RGB"]);
  const DocumentFill = enumeration("DocumentFill", ["WHITE", "TRANSPARENT", "BACKGROUNDCOLOR"]);
  const NewDocumentMode = enumeration("NewDocumentMode", ["RGB"]);
  const Extension = enumeration("Extension", ["LOWERCASE", "NONE", "UPPERCASE"]);
  const SelectionType = enumeration("SelectionType", ["REPLACE", "EXTEND", "DIMINISH", "INTERSECT"]);
  const TextType = enumeration("TextType", ["POINTTEXT", "PARAGRAPHTEXT"]);
  const Justification = enumeration("Justification", ["LEFT", "CENTER", "RIGHT", "LEFTJUSTIFIED", "CENTERJUSTIFIED", "RIGHTJUSTIFIED", "FULLYJUSTIFIED"]);
  const AntiAlias = enumeration("AntiAlias", ["NONE", "SHARP", "CRISP", "STRONG", "SMOOTH"]);
  const NoiseDistribution = enumeration("NoiseDistribution", ["GAUSSIAN", "UNIFORM"]);
  const AdjustmentReference = enumeration("AdjustmentReference", ["ABSOLUTE", "RELATIVE"]);

  const history = { suspended: false, states: effects.history };
  const editStub: EditStub = {
    model,
    fail,
    change(call) {
      effects.calls.push(call);
      if (history.suspended) return;
      effects.history.push(call);
      const d = model.docs.find((x) => x.id === model.activeDoc);
      if (d) {
        d.history = [...(d.history ?? []), call];
        addState(d, call);
      }
    },
    realm,
    px: (d, v) => lengthPx(v, ruler(), res(d)),
    layerObject: (d, l) => layerObject(d, l),
    docObject: (d) => docObject(d),
    realmArray: (items) => arr(items) as never,
    enums: { ElementPlacement, BlendMode, ColorBlendMode, AnchorPosition, Direction, ResampleMethod, TrimType, RasterizeType, NoiseDistribution, AdjustmentReference },
    history,
  };
  const textStub: TextStub = {
    fail,
    change: (call) => editStub.change(call),
    px: (d, v) => lengthPx(v, ruler(), res(d)),
    arr,
    strict,
    enums: { TextType, Justification, AntiAlias },
    SolidColor: function SolidColorOfStub(this: unknown) { return strict("SolidColor", new SolidColor()); } as unknown as TextStub["SolidColor"],
  };
  const historyStates = new WeakMap<PanelState, object>();
  // HistoryState: name and snapshot; the same state is the same object (scripts compare them with ==).
  const historyStateObject = (entry: PanelState): object => {
    let o = historyStates.get(entry);
    if (o === undefined) {
      o = strict("HistoryState", { typename: "HistoryState", name: entry.name, snapshot: entry.snapshot });
      historyStates.set(entry, o);
    }
    return o;
  };
  const docs = new Map<FakeDocument, object>();
  const layers = new Map<FakeLayer, object>();
  let dialogs: Enumerator = DialogModes["ALL"]!;
  let background: object = {};

  const activeDocument = (): FakeDocument => {
    const d = model.docs.find((x) => x.id === model.activeDoc);
    // Application.activeDocument: "No such element" when no document is open.
    if (!d) throw new Error("General Photoshop error occurred. No such element");
    return d;
  };
  const setActive = (d: FakeDocument): void => {
    if (model.activeDoc === d.id) return;
    model.activeDoc = d.id;
    model.switched();
  };
  const selectionOf = (d: FakeDocument): FakeDocument["selection"] => d.selection;
  // ArtLayers.add() / LayerSets.add(): a new empty layer or group that becomes the active layer. Photoshop puts it
  // above the active layer; the stub puts it at the top of the collection it was added to.
  const adds = (d: FakeDocument, list: () => FakeLayer[], group: boolean) => ({
    add() {
      const l: FakeLayer = { id: model.newLayerId(), name: group ? "Group 1" : "Layer 1", kind: group ? "group" : "pixel", visible: true, opacity: 100, left: 0, top: 0, right: 0, bottom: 0, color: [0, 0, 0, 0] };
      if (group) l.children = [];
      list().unshift(l);
      d.active = [l.id];
      d.dirty = true;
      editStub.change(`${group ? "layerSets" : "artLayers"}.add()`);
      return layerObject(d, l);
    },
  });
  const artLayers = (d: FakeDocument, list: () => FakeLayer[]): unknown =>
    collection("ArtLayers", () => list().filter((l) => !l.children).map((l) => layerObject(d, l)), adds(d, list, false));
  const layerSets = (d: FakeDocument, list: () => FakeLayer[]): unknown =>
    collection("LayerSets", () => list().filter((l) => l.children).map((l) => layerObject(d, l)), adds(d, list, true));

  function layerObject(d: FakeDocument, l: FakeLayer): object {
    let o = layers.get(l);
    if (o) return o;
    const group = l.children !== undefined;
    o = strict(group ? "LayerSet" : "ArtLayer", addMembers({
      typename: group ? "LayerSet" : "ArtLayer",
      get id() { return l.id; },
      get name() { return l.name; },
      set name(v: string) { l.name = String(v); editStub.change(`${l.id}.name = ${JSON.stringify(String(v))}`); },
      get kind() {
        if (group) throw fail("LayerSet.kind does not exist (LayerSet has no kind property)");
        const kind = LayerKind[l.psKind ?? KIND_OF[l.kind]!];
        if (!kind) throw fail(`LayerKind.${l.psKind} is not in the stub`);
        return kind;
      },
      // ArtLayer.kind: settable only for an empty layer, and here only to LayerKind.TEXT (dom-text.ts).
      set kind(v: Enumerator) {
        if (group) throw fail("LayerSet.kind does not exist (LayerSet has no kind property)");
        if (v !== LayerKind["TEXT"]) throw fail(`ArtLayer.kind = ${String(v)} is not modelled`);
        if (l.kind !== "pixel" || l.right - l.left > 0 || l.bottom - l.top > 0) throw new Error("General Photoshop error occurred. The layer is not empty.");
        l.kind = "text";
        l.text = newText();
        editStub.change(`${l.id}.kind = LayerKind.TEXT`);
      },
      // ArtLayer.textItem: valid only for a text layer.
      get textItem() {
        if (group || l.kind !== "text") throw new Error("General Photoshop error occurred. The layer is not a text layer.");
        return textItem(textStub, d, l);
      },
      get isBackgroundLayer() { return l.kind === "background"; },
      get visible() { return l.visible; },
      set visible(v: boolean) { l.visible = v === true; editStub.change(`${l.id}.visible = ${v === true}`); },
      get grouped() { return false; },
      // ArtLayer.bounds: the bounding rectangle of the layer's non-transparent pixels, in the ruler units.
      get bounds() { const b = layerBounds(l); return arr([len(d, b.left), len(d, b.top), len(d, b.right), len(d, b.bottom)]); },
      get layers() {
        if (!group) throw fail("ArtLayer.layers does not exist");
        return collection("Layers", () => l.children!.map((c) => layerObject(d, c)));
      },
      get artLayers() {
        if (!group) throw fail("ArtLayer.artLayers does not exist");
        return artLayers(d, () => l.children!);
      },
      get layerSets() {
        if (!group) throw fail("ArtLayer.layerSets does not exist");
        return layerSets(d, () => l.children!);
      },
      // ArtLayer.translate(deltaX, deltaY): plain numbers are read in the ruler units.
      translate(dx: unknown, dy: unknown) {
        const [x, y] = [lengthPx(dx, ruler(), res(d)), lengthPx(dy, ruler(), res(d))];
        const move = (m: FakeLayer): void => {
          m.left += x; m.right += x; m.top += y; m.bottom += y;
          for (const c of m.children ?? []) move(c);
        };
        move(l);
        d.dirty = true;
      },
    }, group ? layerEditMembers(editStub, d, l) : addMembers(layerEditMembers(editStub, d, l), layerFilterMembers(editStub, d, l))));
    layers.set(l, o);
    return o;
  }

  function pathObject(d: FakeDocument, p: FakePath): object {
    const at = ([x, y]: [number, number]): unknown[] => arr([coord(d, x), coord(d, y)]);
    // PathPoint.leftDirection is the "in" direction point, rightDirection the "out" one (paths.ts); a straight
    // segment's sit on its anchor.
    const point = (anchor: [number, number], i: number): object => {
      const h = p.handles?.[i] ?? { in: anchor, out: anchor };
      return strict("PathPoint", { anchor: at(anchor), leftDirection: at(h.in), rightDirection: at(h.out) });
    };
    const sub = strict("SubPathItem", { pathPoints: collection("PathPoints", () => p.points.map(point)), closed: true });
    return strict("PathItem", { name: p.name, kind: PathKind[p.kind], subPathItems: collection("SubPathItems", () => [sub]) });
  }

  function selectionObject(d: FakeDocument): object {
    return strict("Selection", addMembers({
      typename: "Selection",
      // Selection.bounds: reading it without a selection is an error ("General Photoshop error occurred").
      get bounds() {
        const s = selectionOf(d);
        if (!s) throw new Error("General Photoshop error occurred. This functionality may not be available in this version of Photoshop.");
        return arr([len(d, s.x), len(d, s.y), len(d, s.x + s.width), len(d, s.y + s.height)]);
      },
      // Selection.select(region, type, feather, antiAlias): region is an array of [x, y] in the ruler units.
      select(region: ArrayLike<ArrayLike<unknown>>, type?: Enumerator) {
        if (type !== undefined && type !== SelectionType["REPLACE"]) throw fail(`Selection.select with ${String(type)} is not modelled`);
        const xs: number[] = [];
        const ys: number[] = [];
        for (let i = 0; i < region.length; i++) {
          xs.push(lengthPx(region[i]![0], ruler(), res(d)));
          ys.push(lengthPx(region[i]![1], ruler(), res(d)));
        }
        d.selection = clip(d, Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys));
        // A new selection is a history state of its own in Photoshop, so going back to it brings the selection back.
        editStub.change("selection.select()");
      },
      selectAll() { d.selection = { x: 0, y: 0, width: d.width, height: d.height }; editStub.change("selection.selectAll()"); },
      deselect() { d.selection = null; editStub.change("selection.deselect()"); },
      // Selection.expand(by): Photoshop's Modify > Expand takes 1 to 500 pixels.
      expand(by: unknown) {
        const px = lengthPx(by, ruler(), res(d));
        if (!(px >= 1 && px <= 500)) throw new Error(`Illegal argument - argument 1: expand by ${px} px is outside 1-500 px`);
        const s = d.selection;
        if (!s) throw new Error("General Photoshop error occurred. The command is not currently available.");
        // An ellipse grown by px on every side is still (close to) an ellipse.
        d.selection = (s.ellipse ? ellipse : clip)(d, s.x - px, s.y - px, s.x + s.width + px, s.y + s.height + px);
        editStub.change(`selection.expand(${px})`);
      },
      // Selection.makeWorkPath(tolerance): the selection becomes the document's work path and is dropped
      // (Photoshop User Guide, "Convert between paths and selection borders": the selection is replaced by the path).
      makeWorkPath(tolerance?: number) {
        const s = d.selection;
        if (!s) throw new Error("General Photoshop error occurred. The command is not currently available.");
        void tolerance;
        // The Paths panel lists saved paths and the work path above the active layer's vector mask or text path.
        const paths = (d.paths ?? []).filter((p) => p.kind !== "WORKPATH");
        const at = paths.findIndex((p) => p.kind === "VECTORMASK" || p.kind === "TEXTMASK");
        const work = workPath(s, quirks.counterClockwise);
        paths.splice(at < 0 ? paths.length : at, 0, work);
        d.paths = paths;
        d.selection = null;
      },
    }, selectionEditMembers(editStub, d)));
  }

  function docObject(d: FakeDocument): object {
    let o = docs.get(d);
    if (o) return o;
    o = strict("Document", addMembers({
      typename: "Document",
      get id() { return d.id; },
      get name() { return d.name; },
      get width() { return len(d, d.width); },
      get height() { return len(d, d.height); },
      get resolution() { return res(d); },
      get mode() { return DocumentMode["RGB"]; },
      get saved() { return !d.dirty; },
      // Document.fullName: an error for a document that was never saved.
      get fullName() {
        if (!d.filePath) throw new Error("General Photoshop error occurred. The document has not yet been saved.");
        return fileObject(d.filePath);
      },
      get layers() { return collection("Layers", () => d.layers.map((l) => layerObject(d, l))); },
      get layerSets() { return layerSets(d, () => d.layers); },
      get artLayers() { return artLayers(d, () => d.layers); },
      get activeLayer() {
        const l = layerEntries(d.layers).find((e) => e.layer.id === d.active[0])?.layer;
        if (!l) throw new Error("General Photoshop error occurred. No such element");
        return layerObject(d, l) as { id: number };
      },
      set activeLayer(v: { id: number }) {
        // Setting Document.activeLayer shows a hidden layer (it selects the layer the way a click in the Layers panel does).
        const l = layerEntries(d.layers).find((e) => e.layer.id === v.id)!.layer;
        l.visible = true;
        d.active = [l.id];
      },
      get selection() { return selectionObject(d); },
      // Document.historyStates: the snapshot and the states of the History panel (`history-panel.ts`).
      get historyStates() { return collection("HistoryStates", () => entries(d).map((entry) => historyStateObject(entry))); },
      // Document.layerComps (LayerComps): the comps in the Layer Comps panel's order; add() appends one (compsCollection below).
      get layerComps() { return compsCollection(d); },
      get pathItems() { return collection("PathItems", () => (d.paths ?? []).map((p) => pathObject(d, p))); },
      // Document.activeHistoryState: setting an earlier state undoes what came after it.
      // HistoryState.name is the state's name in the History panel.
      get activeHistoryState() { return historyStateObject(activeEntry(d)); },
      set activeHistoryState(to: object) {
        const entry = entries(d).find((e) => historyStates.get(e) === to);
        if (entry === undefined || !activate(d, entry)) throw new Error("General Photoshop error occurred. No such history state");
        effects.calls.push(`activeHistoryState = ${entry.name}`);
      },
      close(mode: Enumerator) {
        if (mode !== SaveOptions["DONOTSAVECHANGES"]) throw fail(`Document.close(${String(mode)}) is not modelled`);
        const wasActive = model.activeDoc === d.id;
        model.docs = model.docs.filter((x) => x !== d);
        if (wasActive) {
          model.activeDoc = model.docs.at(-1)?.id;
          model.switched();
        }
      },
      // Document.saveAs(saveIn, options, asCopy, extensionType): the format is the options' class.
      saveAs(file: { fsName: string }, options: { kind: string }, asCopy?: boolean) {
        if (options?.kind !== "psd") throw fail("Document.saveAs: only PhotoshopSaveOptions is modelled");
        writePsd(d, file.fsName);
        if (!asCopy) Object.assign(d, { filePath: file.fsName, name: basename(file.fsName), dirty: false, format: "psd" });
      },
      // Document.save(): saves in the format the document was opened from (a JPEG stays a JPEG).
      save() {
        if (!d.filePath) throw new Error("General Photoshop error occurred. The document has not yet been saved.");
        if ((d.format ?? "psd") !== "psd") throw fail(`Document.save() would write ${d.format}; the stub writes only PSD`);
        writePsd(d, d.filePath);
        d.dirty = false;
      },
    }, documentEditMembers(editStub, d)));
    docs.set(d, o);
    return o;
  }

  /**
   * The layer comps (Photoshop JavaScript Reference, LayerComps and LayerComp). LayerComps.add(name, comment,
   * appearance, position, visibility): "Adds a layer comp", recording the layers as they are now. LayerComp's name,
   * comment, appearance ("uses layer appearance (layer styles) settings"), position ("uses layer position") and
   * visibility ("uses layer visibility") are read-write. apply():
   * "Applies the layer comp to the document": each layer it recorded takes back its visibility and position, as far
   * as the comp uses them (a layer made after the comp was recorded is left as it is). recapture(): "Recaptures the
   * current layer state(s) for this layer comp". remove(): "Deletes this object".
   */
  const compObjects = new WeakMap<FakeComp, object>();
  const snapshot = (d: FakeDocument): FakeComp["states"] =>
    Object.fromEntries(layerEntries(d.layers).map(({ layer }) => [layer.id, { visible: layer.visible, left: layer.left, top: layer.top }]));
  const compObject = (d: FakeDocument, c: FakeComp): object => {
    let o = compObjects.get(c);
    if (o) return o;
    const flag = (key: "appearance" | "position" | "visibility") => ({
      get: () => c[key],
      set: (v: unknown) => {
        c[key] = v === true;
        editStub.change(`comp ${JSON.stringify(c.name)}.${key} = ${v === true}`);
      },
    });
    const props = {
      typename: "LayerComp",
      get name() { return c.name; },
      set name(v: string) { c.name = String(v); editStub.change(`comp.name = ${JSON.stringify(String(v))}`); },
      get comment() { return c.comment; },
      set comment(v: string) { c.comment = String(v); editStub.change(`comp ${JSON.stringify(c.name)}.comment = ${JSON.stringify(String(v))}`); },
      apply() {
        for (const { layer } of layerEntries(d.layers)) {
          const state = c.states[layer.id];
          if (!state) continue;
          if (c.visibility) layer.visible = state.visible;
          if (c.position && !layer.children && (state.left !== layer.left || state.top !== layer.top)) {
            const [dx, dy] = [state.left - layer.left, state.top - layer.top];
            Object.assign(layer, { left: layer.left + dx, right: layer.right + dx, top: layer.top + dy, bottom: layer.bottom + dy });
          }
        }
        d.dirty = true;
        editStub.change(`comp ${JSON.stringify(c.name)}.apply()`);
      },
      recapture() {
        c.states = snapshot(d);
        editStub.change(`comp ${JSON.stringify(c.name)}.recapture()`);
      },
      remove() {
        d.comps = (d.comps ?? []).filter((x) => x !== c);
        editStub.change(`comp ${JSON.stringify(c.name)}.remove()`);
      },
    };
    for (const key of ["appearance", "position", "visibility"] as const) Object.defineProperty(props, key, { ...flag(key), enumerable: true });
    o = strict("LayerComp", props);
    compObjects.set(c, o);
    return o;
  };
  const compsCollection = (d: FakeDocument): unknown =>
    collection("LayerComps", () => (d.comps ?? []).map((c) => compObject(d, c)), {
      add(name: string, comment: string, appearance: boolean, position: boolean, visibility: boolean) {
        const c: FakeComp = { name: String(name), comment: String(comment ?? ""), appearance: appearance === true, position: position === true, visibility: visibility === true, states: snapshot(d) };
        d.comps = [...(d.comps ?? []), c];
        editStub.change(`layerComps.add(${JSON.stringify(c.name)})`);
        return compObject(d, c);
      },
    });

  // PhotoshopSaveOptions write PSD (version 1) whatever the extension; only the Large Document Format writes PSB.
  // The document's layer tree goes into the file and comes back from it (psd-file.ts).
  function writePsd(d: FakeDocument, path: string, psb = false): void {
    writeFakePsd(d, path, psb);
  }

  function fileObject(path: string): object {
    return strict("File", { fsName: resolve(path), name: basename(path), get exists() { return existsSync(path); } });
  }

  function open(file: { fsName: string }): object {
    const path = file.fsName;
    if (!existsSync(path)) throw new Error(`File or folder does not exist: ${path}`);
    let d: Omit<FakeDocument, "id">;
    if (extname(path).toLowerCase() === ".psd" || extname(path).toLowerCase() === ".psb") {
      const psd = readFakePsd(path, () => model.newLayerId());
      model.reserveLayerIds(Math.max(0, ...layerEntries(psd.layers).map((e) => e.layer.id)));
      const first = layerEntries(psd.layers).find((e) => !e.layer.children)?.layer;
      d = { name: basename(path), ...psd, active: first ? [first.id] : [], selection: null, dirty: false, filePath: path, format: "psd" };
    } else {
      const img = images.get(resolve(path));
      if (!img) throw fail(`app.open: ${path} was not decoded before the script ran`);
      // A flat image opens as one layer; its bounds are those of its non-transparent pixels.
      let [x0, y0, x1, y1] = [img.width, img.height, 0, 0];
      for (let y = 0; y < img.height; y++) {
        for (let x = 0; x < img.width; x++) {
          if (img.data[(y * img.width + x) * 4 + 3]! > 0) [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x + 1), Math.max(y1, y + 1)];
        }
      }
      if (x1 <= x0) [x0, y0, x1, y1] = [0, 0, 0, 0];
      const c = ((Math.floor((y0 + y1) / 2) * img.width + Math.floor((x0 + x1) / 2)) * 4);
      const opaque = x0 === 0 && y0 === 0 && x1 === img.width && y1 === img.height;
      const layer: FakeLayer = { id: model.newLayerId(), name: opaque ? "Background" : "Layer 0", kind: opaque ? "background" : "pixel", visible: true, opacity: 100, left: x0, top: y0, right: x1, bottom: y1, color: [img.data[c]!, img.data[c + 1]!, img.data[c + 2]!, img.data[c + 3]!] };
      d = { name: basename(path), width: img.width, height: img.height, resolution: img.resolution, layers: [layer], active: [layer.id], selection: null, dirty: false, filePath: path, format: img.format };
    }
    const doc = model.add(d);
    model.switched();
    return docObject(doc);
  }

  const documents = collection("Documents", () => model.docs.map(docObject), {
    // Documents.add(width, height, resolution, name, mode, initialFill).
    add(w: unknown, h: unknown, resolution: number, name: string, mode: Enumerator, fill: Enumerator) {
      void mode;
      const [width, height] = [lengthPx(w, ruler(), resolution), lengthPx(h, ruler(), resolution)];
      const transparent = fill === DocumentFill["TRANSPARENT"];
      // A transparent document's Layer 1 holds no pixels: its bounds are empty (ArtLayer.bounds of an empty layer
      // is 0, 0, 0, 0), so Image > Trim has nothing to keep until something is painted or placed.
      const layer: FakeLayer = { id: model.newLayerId(), name: transparent ? "Layer 1" : "Background", kind: transparent ? "pixel" : "background", visible: true, opacity: 100, left: 0, top: 0, right: transparent ? 0 : width, bottom: transparent ? 0 : height, color: transparent ? [0, 0, 0, 0] : [255, 255, 255, 255] };
      const doc = model.add({ name, width, height, resolution, layers: [layer], active: [layer.id], selection: null, dirty: false });
      model.switched();
      return docObject(doc);
    },
  });

  const app = strict("Application", {
    typename: "Application",
    version: "26.1.0",
    documents,
    preferences: prefs,
    // Application.fonts: TextFonts, each a TextFont (family, name, postScriptName, style).
    fonts: collection("TextFonts", () => STUB_FONTS.map((f) => strict("TextFont", { typename: "TextFont", ...f }))),
    get displayDialogs() { return dialogs; },
    // Application.backgroundColor: what canvas edits paint a Background layer's new area with.
    get backgroundColor() { return background; },
    set backgroundColor(v: object) { background = v; },
    set displayDialogs(v: Enumerator) { dialogs = v; },
    get activeDocument() { return docObject(activeDocument()); },
    set activeDocument(v: object) {
      const d = [...docs.entries()].find(([, o]) => o === v)?.[0];
      if (!d) throw fail("app.activeDocument set to something that is not a document");
      setActive(d);
    },
    open: (file: { fsName: string }) => open(file),
  });

  const docById = (id: number): FakeDocument => {
    const d = model.docs.find((x) => x.id === id);
    if (!d) throw new Error("General Photoshop error occurred. No such element");
    return d;
  };
  const executeActionGet = actionGet({ model, ids, fail, activeDocument, quirks });

  const runAction = actionRun({ ids, fail, activeDocument, docById, effects, writePsd });
  const editAction = actionEdit({ model, ids, fail, activeDocument, change: (call) => editStub.change(call), images });
  const filterAction = actionFilter({ ids, fail, activeDocument, change: (call) => editStub.change(call) });
  const styleAction = actionEffects({ ids, fail, activeDocument, change: (call) => editStub.change(call) });
  // executeAction(eventID, descriptor, displayDialogs): every event is recorded with its descriptor.
  const executeAction = (event: number, desc: StubActionDescriptor | undefined, mode?: unknown): StubActionDescriptor => {
    const name = ids.typeIDToStringID(event);
    effects.actions.push({ event: name, descriptor: plainDescriptor(desc, ids.typeIDToStringID) });
    if (styleAction(name, desc) || editAction(name, desc) || filterAction(name, desc)) return new StubActionDescriptor();
    return runAction(event, desc, mode);
  };

  class PhotoshopSaveOptions { kind = "psd"; layers = true; }
  // SolidColor.rgb (RGBColor): red, green and blue 0–255, and the same colour as hexValue.
  class RGBColor {
    red = 0;
    green = 0;
    blue = 0;
    get hexValue(): string { return [this.red, this.green, this.blue].map((v) => Math.round(v).toString(16).padStart(2, "0")).join(""); }
    set hexValue(hex: string) {
      const [r, g, b] = [0, 2, 4].map((i) => Number.parseInt(String(hex).slice(i, i + 2), 16));
      [this.red, this.green, this.blue] = [r!, g!, b!];
    }
  }
  class SolidColor { rgb = new RGBColor(); }
  const construct = <T extends object>(label: string, C: new () => T) => function (this: unknown) { return strict(label, new C()); };

  const globals: Record<string, unknown> = {
    app,
    UnitValue: unitValueFunction(),
    Units,
    DialogModes,
    SaveOptions,
    ElementPlacement,
    LayerKind,
    PathKind,
    BlendMode,
    DocumentMode,
    DocumentFill,
    NewDocumentMode,
    Extension,
    SelectionType,
    ColorBlendMode,
    AnchorPosition,
    Direction,
    ResampleMethod,
    TrimType,
    RasterizeType,
    TextType,
    Justification,
    AntiAlias,
    NoiseDistribution,
    AdjustmentReference,
    ActionDescriptor: construct("ActionDescriptor", StubActionDescriptor),
    ActionReference: construct("ActionReference", StubActionReference),
    ActionList: construct("ActionList", StubActionList),
    PhotoshopSaveOptions: construct("PhotoshopSaveOptions", PhotoshopSaveOptions),
    SolidColor: construct("SolidColor", SolidColor),
    File: function File(path: string) { return fileObject(path); },
    charIDToTypeID: ids.charIDToTypeID,
    stringIDToTypeID: ids.stringIDToTypeID,
    typeIDToStringID: ids.typeIDToStringID,
    executeAction,
    executeActionGet,
  };
  return { globals, effects };
}
