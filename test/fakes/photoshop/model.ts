/*
 * The fake Photoshop's documents: a small in-memory model that answers the bridge's operations (recognised by
 * their marker and JSON params, never by interpreting ExtendScript). Layers are solid-colour rectangles
 * (`layers.ts`).
 */
import { readFile, writeFile } from "node:fs/promises";
import { basename, extname } from "node:path";
import { readPsd, writePsdBuffer } from "ag-psd";
import sharp from "sharp";
import { layerEntries, type Entry, type FakeLayer, isInside, layerBounds, layerInfo, parentList, type PixelSource, render } from "./layers.js";

export type { FakeLayer, PixelSource } from "./layers.js";

export interface FakeDocument {
  id: number;
  name: string;
  width: number;
  height: number;
  layers: FakeLayer[];
  active: number[];
  selection: { x: number; y: number; width: number; height: number } | null;
  filePath?: string;
  dirty: boolean;
  /** Pixels per inch. @default 72 */
  resolution?: number;
  /** The file format it was opened from or saved as ("psd", "jpeg", "png", "psb"). */
  format?: string;
  /** Path items in the Paths panel (the work path, saved paths, vector masks). */
  paths?: FakePath[];
}

/** A path item: its kind (PathKind) and its points in document pixels, one closed sub-path. */
export interface FakePath {
  name: string;
  kind: "WORKPATH" | "NORMALPATH" | "CLIPPINGPATH" | "VECTORMASK" | "TEXTMASK";
  points: Array<[number, number]>;
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

/** Anything the model wants the server to push: Photoshop events. */
export type Emit = (event: string, data: string) => void;

export class FakeModel {
  docs: FakeDocument[] = [];
  activeDoc: number | undefined;
  private nextDocId = 100;
  private nextLayerId = 1;
  private changes = 0;

  constructor(private readonly emit: Emit) {}

  static withSample(emit: Emit): FakeModel {
    const model = new FakeModel(emit);
    const id = () => model.nextLayerId++;
    const bg: FakeLayer = { id: id(), name: "Background", kind: "background", visible: true, opacity: 100, left: 0, top: 0, right: 320, bottom: 240, color: [255, 255, 255, 255] };
    const b: FakeLayer = { id: id(), name: "B", kind: "pixel", visible: true, opacity: 100, left: 100, top: 80, right: 200, bottom: 180, color: [0, 0, 255, 255] };
    const a: FakeLayer = { id: id(), name: "A", kind: "pixel", visible: true, opacity: 80, left: 40, top: 60, right: 120, bottom: 140, color: [0, 200, 0, 255] };
    const group: FakeLayer = { id: id(), name: "Group G", kind: "group", visible: true, opacity: 100, left: 0, top: 0, right: 0, bottom: 0, color: [0, 0, 0, 0], children: [a, b] };
    const title: FakeLayer = { id: id(), name: "Title", kind: "text", visible: true, opacity: 100, left: 20, top: 10, right: 300, bottom: 50, color: [255, 0, 0, 255] };
    model.add({ name: SAMPLE_NAME, width: 320, height: 240, layers: [title, group, bg], active: [title.id], selection: null, dirty: false });
    return model;
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

  private docInfo(doc: FakeDocument): Record<string, unknown> {
    const out: Record<string, unknown> = {
      id: doc.id,
      name: doc.name,
      width: doc.width,
      height: doc.height,
      resolution: 72,
      colorMode: "rgb",
      isDirty: doc.dirty,
      activeLayerIds: [...doc.active],
    };
    if (doc.filePath) out["filePath"] = doc.filePath;
    return out;
  }

  private activeEntries(doc: FakeDocument): Entry[] {
    return layerEntries(doc.layers).filter((e) => doc.active.includes(e.layer.id));
  }

  /** The layer with this id (the bridge resolves references; operations take ids). */
  private layer(doc: FakeDocument, id: unknown): Entry {
    const found = layerEntries(doc.layers).find((e) => e.layer.id === id);
    if (!found) throw new Fail("LAYER_NOT_FOUND", `No layer with id ${String(id)}`);
    return found;
  }

  private tree(doc: FakeDocument): Record<string, unknown>[] {
    const entries = layerEntries(doc.layers);
    return entries.filter((e) => e.depth === 0).map((e) => layerInfo(e, entries, true));
  }

  /** Runs one bridge operation. */
  // biome-ignore lint/suspicious/noExplicitAny: params are whatever the bridge's script sent; the fake reads them loosely
  async run(op: string, p: Record<string, any>): Promise<unknown> {
    switch (op) {
      case "app.info":
        return { version: "26.1.0" };
      case "document.list":
        return this.docs.map((d) => this.docInfo(d));
      case "document.get":
        return this.docInfo(this.doc(p["documentId"]));
      case "document.tree": {
        const doc = this.doc(p["documentId"]);
        return { document: this.docInfo(doc), layers: this.tree(doc) };
      }
      case "layer.get": {
        const doc = this.doc(p["documentId"]);
        return layerInfo(this.layer(doc, p["layerId"]), layerEntries(doc.layers), false);
      }
      case "layer.select": {
        const doc = this.doc(p["documentId"]);
        const ids = p["ids"] as number[];
        for (const id of ids) this.layer(doc, id);
        const before = JSON.stringify(doc.active);
        doc.active = layerEntries(doc.layers).filter((e) => ids.includes(e.layer.id)).map((e) => e.layer.id);
        if (JSON.stringify(doc.active) !== before) this.changed(doc, { selection: this.activeEntries(doc).map((e) => e.index) });
        return null;
      }
      case "layer.active": {
        const doc = this.doc(p["documentId"]);
        const entries = layerEntries(doc.layers);
        return { documentId: doc.id, layers: this.activeEntries(doc).map((e) => layerInfo(e, entries, false)) };
      }
      case "layer.place":
        return this.place(this.doc(p["documentId"]), p);
      case "document.create": {
        const background = p["background"] as string;
        const transparent = background === "transparent";
        const hex = (at: number): number => Number.parseInt(background.slice(at, at + 2), 16);
        // Photoshop's transparent fill makes a "Layer 1"; an opaque one a Background layer of that colour.
        const layer: FakeLayer = {
          id: this.nextLayerId++,
          name: transparent ? "Layer 1" : "Background",
          kind: transparent ? "pixel" : "background",
          visible: true,
          opacity: 100,
          left: 0,
          top: 0,
          right: p["width"],
          bottom: p["height"],
          color: transparent ? [0, 0, 0, 0] : [hex(1), hex(3), hex(5), 255],
        };
        const doc = this.add({ name: p["name"], width: p["width"], height: p["height"], layers: [layer], active: [layer.id], selection: null, dirty: false });
        this.switched();
        return this.docInfo(doc);
      }
      case "document.open": {
        const path = p["path"] as string;
        let bytes: Buffer;
        try {
          bytes = await readFile(path);
        } catch {
          throw new Fail("BAD_REQUEST", `No such file: ${path}`);
        }
        let width: number;
        let height: number;
        let names: string[];
        if (extname(path).toLowerCase() === ".psd") {
          const psd = readPsd(bytes, { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true });
          [width, height, names] = [psd.width, psd.height, (psd.children ?? []).map((c) => c.name ?? "Layer")];
        } else {
          const meta = await sharp(bytes).metadata();
          [width, height, names] = [meta.width!, meta.height!, ["Background"]];
        }
        const layers = names.reverse().map((name): FakeLayer => ({ id: this.nextLayerId++, name, kind: "pixel", visible: true, opacity: 100, left: 0, top: 0, right: width, bottom: height, color: [128, 128, 128, 255] }));
        const doc = this.add({ name: basename(path), width, height, layers, active: layers.length ? [layers[0]!.id] : [], selection: null, dirty: false, filePath: path });
        this.switched();
        return this.docInfo(doc);
      }
      case "document.close": {
        const doc = this.doc(p["documentId"]);
        this.docs = this.docs.filter((d) => d !== doc);
        if (this.activeDoc === doc.id) this.activeDoc = this.docs.at(-1)?.id;
        this.switched();
        return null;
      }
      case "document.save": {
        const doc = this.doc(p["documentId"]);
        const path = p["path"] as string;
        const names = layerEntries(doc.layers).filter((e) => !e.layer.children).map((e) => e.layer.name).reverse();
        await writeFile(path, writePsdBuffer({ width: doc.width, height: doc.height, children: names.map((name) => ({ name })) }));
        doc.filePath = path;
        doc.name = basename(path);
        doc.dirty = false;
        return { path };
      }
      case "selection.get":
        return this.doc(p["documentId"]).selection;
      case "selection.set": {
        const doc = this.doc(p["documentId"]);
        doc.selection = p["shape"] === null ? null : FakeModel.shapeBox(doc, p["shape"]);
        this.changed(doc, { metaDataOnly: true });
        return doc.selection;
      }
      case "selection.path": {
        const s = this.doc(p["documentId"]).selection;
        if (!s) return null;
        const e = p["expand"] ?? 0;
        const [x, y, w, h] = [s.x - e, s.y - e, s.width + 2 * e, s.height + 2 * e];
        return { d: `M${x} ${y} L${x + w} ${y} L${x + w} ${y + h} L${x} ${y + h} Z`, box: { x, y, width: w, height: h } };
      }
      case "action.autoCutout": {
        const doc = this.doc(p["documentId"]);
        const b = layerBounds(this.layer(doc, p["layerId"]).layer);
        if (b.right <= b.left || b.bottom <= b.top) return false;
        doc.selection = { x: b.left, y: b.top, width: b.right - b.left, height: b.bottom - b.top };
        this.changed(doc, { metaDataOnly: true });
        return true;
      }
      case "action.removeBackground":
        this.layer(this.doc(p["documentId"]), p["layerId"]);
        return true;
      default:
        throw new Fail("JSX_FAILED", `the fake does not model ${op}`);
    }
  }

  /**
   * `layer.place`: a new pixel layer of the placed file's size at x, y, directly above `aboveLayerId` (in its
   * group) or at the top, made active. Layers here are solid colours: it takes the colour of the image's centre.
   */
  // biome-ignore lint/suspicious/noExplicitAny: params are whatever the bridge's script sent; the fake reads them loosely
  private async place(doc: FakeDocument, p: Record<string, any>): Promise<number> {
    const target = p["aboveLayerId"] === null ? null : this.layer(doc, p["aboveLayerId"]);
    const { data, info } = await sharp(await readFile(p["path"] as string)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const centre = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * 4;
    const layer: FakeLayer = {
      id: this.nextLayerId++,
      name: p["name"],
      kind: "pixel",
      visible: true,
      opacity: 100,
      left: p["x"],
      top: p["y"],
      right: p["x"] + info.width,
      bottom: p["y"] + info.height,
      color: [data[centre]!, data[centre + 1]!, data[centre + 2]!, data[centre + 3]!],
    };
    const siblings = target ? parentList(doc.layers, target.layer) : doc.layers;
    siblings.splice(target ? siblings.indexOf(target.layer) : 0, 0, layer);
    doc.active = [layer.id];
    doc.dirty = true;
    const entry = layerEntries(doc.layers).find((e) => e.layer === layer)!;
    this.changed(doc, { layers: [{ id: layer.id, index: entry.index, added: true }], selection: [entry.index] });
    return layer.id;
  }

  /** Pixels of a layer (by id) or of the document composite, scaled with nearest-neighbour sampling. */
  pixels(p: { documentId?: number; layerId?: number; layerSpec?: unknown; scale?: number; scaleX?: number }): PixelSource {
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
    return render(b, entries.filter((e) => !e.layer.children && e.layer.visible).map((e) => e.layer), scale);
  }

  /** The bounding box of a selection shape, clipped to the canvas (rectangles arrive clipped; Photoshop clips the rest). */
  private static shapeBox(doc: FakeDocument, shape: { rect?: FakeDocument["selection"]; points?: { x: number; y: number }[] }): FakeDocument["selection"] {
    const xs = shape.rect ? [shape.rect.x, shape.rect.x + shape.rect.width] : shape.points!.map((q) => q.x);
    const ys = shape.rect ? [shape.rect.y, shape.rect.y + shape.rect.height] : shape.points!.map((q) => q.y);
    const [x0, y0] = [Math.max(0, Math.min(...xs)), Math.max(0, Math.min(...ys))];
    const [x1, y1] = [Math.min(doc.width, Math.max(...xs)), Math.min(doc.height, Math.max(...ys))];
    return x1 > x0 && y1 > y0 ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : null;
  }


}
