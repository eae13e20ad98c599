/*
 * The fake Photoshop's documents: a small in-memory model. The bridge's operation scripts run against it through
 * the DOM stub in `extendscript/`; this file holds the state and the pixels. Layers are solid-colour rectangles
 * (`layers.ts`).
 */
import { layerEntries, type Entry, type FakeLayer, isInside, layerBounds, type PixelSource, render } from "./layers.js";

export type { FakeLayer, PixelSource } from "./layers.js";

export interface FakeDocument {
  id: number;
  name: string;
  width: number;
  height: number;
  layers: FakeLayer[];
  active: number[];
  selection: FakeSelection;
  filePath?: string;
  dirty: boolean;
  /** Pixels per inch. @default 72 */
  resolution?: number;
  /** The file format it was opened from or saved as ("psd", "jpeg", "png", "psb"). */
  format?: string;
  /** Path items in the Paths panel (the work path, saved paths, vector masks). */
  paths?: FakePath[];
  /** The names of the document's history states, oldest first (the History panel). */
  history?: string[];
  /** The document's layer comps, in the Layer Comps panel's order. */
  comps?: FakeComp[];
  /** The global light layer effects share (degrees); Photoshop's 120° and 30° when absent. */
  globalLight?: { angle: number; altitude: number };
}

/**
 * A layer comp: a snapshot of the layers' visibility, position and appearance (Photoshop JavaScript Reference,
 * LayerComp: "A snapshot of a state of the layers in a document"), with what it uses of them and what it recorded
 * of each layer by id (the model's layers have no style, so appearance records nothing).
 */
export interface FakeComp {
  name: string;
  comment: string;
  appearance: boolean;
  position: boolean;
  visibility: boolean;
  states: Record<number, { visible: boolean; left: number; top: number }>;
}

/**
 * The selection's bounding box, or null. `ellipse`: the selection is the ellipse inscribed in that box (one that
 * the canvas cuts off is kept as its box only).
 */
export type FakeSelection = { x: number; y: number; width: number; height: number; ellipse?: true } | null;

/**
 * A path item: its kind (PathKind) and its points in document pixels, one closed sub-path; `handles` holds each
 * point's direction points ("in" and "out"), on the anchor for straight segments when absent.
 */
export interface FakePath {
  name: string;
  kind: "WORKPATH" | "NORMALPATH" | "CLIPPINGPATH" | "VECTORMASK" | "TEXTMASK";
  points: Array<[number, number]>;
  handles?: Array<{ in: [number, number]; out: [number, number] }>;
}

/** A failure the bridge's scripts report in their envelope. */
export class Fail extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const SAMPLE_NAME = "Sample";

/**
 * Which sample document the fake opens: its own (`Title` · `Group G` [`A`, `B`] · `Background`, 320×240, which
 * the Photoshop host tests describe) or the conformance suite's (the tree every editor there shows).
 */
export type FakeSample = "fake" | "conformance";

/** Anything the model wants the server to push: Photoshop events. */
export type Emit = (event: string, data: string) => void;

/**
 * A pattern preset of the Patterns panel (Edit > Define Pattern adds one): its name and the tile's size and colour
 * (the model's pixels are one colour per layer).
 */
export interface FakePatternPreset {
  name: string;
  width: number;
  height: number;
  color: [number, number, number, number];
}

export class FakeModel {
  docs: FakeDocument[] = [];
  /** The user's pattern presets, in the Patterns panel's order; Photoshop's own are left out. */
  patternPresets: FakePatternPreset[] = [];
  activeDoc: number | undefined;
  private nextDocId = 100;
  private nextLayerId = 1;
  private changes = 0;

  constructor(private readonly emit: Emit) {}

  static withSample(emit: Emit, sample: FakeSample = "fake"): FakeModel {
    const model = new FakeModel(emit);
    if (sample === "conformance") return model.withConformanceSample();
    const id = () => model.nextLayerId++;
    const bg: FakeLayer = { id: id(), name: "Background", kind: "background", visible: true, opacity: 100, left: 0, top: 0, right: 320, bottom: 240, color: [255, 255, 255, 255] };
    const b: FakeLayer = { id: id(), name: "B", kind: "pixel", visible: true, opacity: 100, left: 100, top: 80, right: 200, bottom: 180, color: [0, 0, 255, 255] };
    const a: FakeLayer = { id: id(), name: "A", kind: "pixel", visible: true, opacity: 80, left: 40, top: 60, right: 120, bottom: 140, color: [0, 200, 0, 255] };
    const group: FakeLayer = { id: id(), name: "Group G", kind: "group", visible: true, opacity: 100, left: 0, top: 0, right: 0, bottom: 0, color: [0, 0, 0, 0], children: [a, b] };
    const title: FakeLayer = { id: id(), name: "Title", kind: "text", visible: true, opacity: 100, left: 20, top: 10, right: 300, bottom: 50, color: [255, 0, 0, 255] };
    model.add({ name: SAMPLE_NAME, width: 320, height: 240, layers: [title, group, bg], active: [title.id], selection: null, dirty: false });
    return model;
  }

  /**
   * The sample the conformance suite expects of every editor (the embedded editor and GIMP build the same tree):
   * 400×300, top to bottom `Label`, group `Product` (`Subject`, active; `Shadow` at 60 %), an opaque light grey
   * `Background`; nothing selected. Layers are solid rectangles here: the boxes of the embedded sample's shapes, at
   * half its 800×600. The cases read sizes and places from the document (GIMP's sample is 320×240); every export
   * sends each pixel through the wire's encryption twice, so a smaller canvas makes the Photoshop rows much faster.
   */
  private withConformanceSample(): FakeModel {
    const id = () => this.nextLayerId++;
    const bg: FakeLayer = { id: id(), name: "Background", kind: "background", visible: true, opacity: 100, left: 0, top: 0, right: 400, bottom: 300, color: [238, 238, 238, 255] };
    const shadow: FakeLayer = { id: id(), name: "Shadow", kind: "pixel", visible: true, opacity: 60, left: 120, top: 200, right: 280, bottom: 245, color: [0, 0, 0, 230] };
    const subject: FakeLayer = { id: id(), name: "Subject", kind: "pixel", visible: true, opacity: 100, left: 145, top: 90, right: 255, bottom: 200, color: [229, 57, 53, 255] };
    const product: FakeLayer = { id: id(), name: "Product", kind: "group", visible: true, opacity: 100, left: 0, top: 0, right: 0, bottom: 0, color: [0, 0, 0, 0], children: [subject, shadow] };
    const label: FakeLayer = { id: id(), name: "Label", kind: "pixel", visible: true, opacity: 100, left: 20, top: 20, right: 130, bottom: 40, color: [37, 99, 235, 255] };
    this.add({ name: SAMPLE_NAME, width: 400, height: 300, layers: [label, product, bg], active: [subject.id], selection: null, dirty: false });
    return this;
  }

  add(doc: Omit<FakeDocument, "id">): FakeDocument {
    const full = { ...doc, id: this.nextDocId++ };
    this.docs.push(full);
    this.activeDoc = full.id;
    return full;
  }

  newLayerId(): number {
    return this.nextLayerId++;
  }

  /** New layer ids start above `id`: a file opened keeps its layers' ids. */
  reserveLayerIds(id: number): void {
    this.nextLayerId = Math.max(this.nextLayerId, id + 1);
  }

  private doc(id: unknown): FakeDocument {
    if (this.docs.length === 0) throw new Fail("NO_DOCUMENT", "No document is open in Photoshop");
    const wanted = id ?? this.activeDoc;
    const doc = this.docs.find((d) => d.id === wanted);
    if (!doc) throw new Fail("DOCUMENT_NOT_FOUND", `No open document with id ${String(id)}`);
    return doc;
  }

  changed(doc: FakeDocument, extra: Record<string, unknown>): void {
    this.emit("imageChanged", JSON.stringify({ version: "1.6.1", timeStamp: Date.now() / 1000, count: ++this.changes, id: doc.id, ...extra }));
  }

  switched(): void {
    this.emit("currentDocumentChanged", String(this.activeDoc ?? ""));
  }

  /** The layer with this id (the bridge resolves references; operations take ids). */
  private layer(doc: FakeDocument, id: unknown): Entry {
    const found = layerEntries(doc.layers).find((e) => e.layer.id === id);
    if (!found) throw new Fail("LAYER_NOT_FOUND", `No layer with id ${String(id)}`);
    return found;
  }

  /**
   * Pixels of a layer (by id) or of the document's layer range, scaled with nearest-neighbour sampling. A range
   * renders every layer in it, hidden ones too, except the indices switched off (`hidden`, or generator-core's
   * `layerSpec.hidden`): sendLayerThumbnailToNetworkClient only skips what its layerSettings disable.
   */
  pixels(p: { documentId?: number; layerId?: number; layerSpec?: unknown; scale?: number; scaleX?: number; hidden?: number[] }): PixelSource {
    const doc = this.doc(p.documentId);
    const scale = p.scale ?? p.scaleX ?? 1;
    const layerId = p.layerId ?? (typeof p.layerSpec === "number" ? p.layerSpec : undefined);
    const entries = layerEntries(doc.layers);
    if (layerId !== undefined) {
      const entry = entries.find((e) => e.layer.id === layerId);
      if (!entry) throw new Fail("LAYER_NOT_FOUND", `No layer with id ${layerId}`);
      const b = layerBounds(entry.layer);
      const leaves = entry.layer.children ? entries.filter((e) => !e.layer.children && isInside(entry.layer, e.layer)) : [entry];
      return render(b, leaves.map((e) => e.layer), scale);
    }
    const b = { left: 0, top: 0, right: doc.width, bottom: doc.height };
    const spec = typeof p.layerSpec === "object" && p.layerSpec !== null ? (p.layerSpec as { hidden?: number[] }) : {};
    const hidden = new Set(p.hidden ?? spec.hidden ?? []);
    return render(b, entries.filter((e) => !e.layer.children && !hidden.has(e.index)).map((e) => e.layer), scale);
  }
}
