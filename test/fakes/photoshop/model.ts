/*
 * The fake Photoshop's documents: a small in-memory model that answers the bridge's operations (recognised by
 * their marker and JSON params, never by interpreting ExtendScript). Layers are solid-colour rectangles; indices
 * follow Photoshop's generator index space (bottom-up, a group takes two slots: reference B.11).
 */
import { readFile, writeFile } from "node:fs/promises";
import { basename, extname } from "node:path";
import { readPsd, writePsdBuffer } from "ag-psd";
import sharp from "sharp";

export type Kind = "pixel" | "group" | "text" | "shape" | "adjustment" | "smartObject" | "background";
export type Rgba = [number, number, number, number];

export interface FakeLayer {
  id: number;
  name: string;
  kind: Kind;
  visible: boolean;
  opacity: number;
  left: number;
  top: number;
  right: number;
  bottom: number;
  color: Rgba;
  children?: FakeLayer[];
}

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

interface Entry {
  layer: FakeLayer;
  index: number;
  depth: number;
}

export const SAMPLE_NAME = "Sample";

export interface PixelSource {
  bounds: { left: number; top: number; right: number; bottom: number };
  width: number;
  height: number;
  argbAt(x: number, y: number): [number, number, number, number];
}

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

  private add(doc: Omit<FakeDocument, "id">): FakeDocument {
    const full = { ...doc, id: this.nextDocId++ };
    this.docs.push(full);
    this.activeDoc = full.id;
    return full;
  }

  private doc(id: unknown): FakeDocument {
    if (this.docs.length === 0) throw new Fail("NO_DOCUMENT", "No document is open in Photoshop");
    const wanted = id ?? this.activeDoc;
    const doc = this.docs.find((d) => d.id === wanted);
    if (!doc) throw new Fail("DOCUMENT_NOT_FOUND", `No open document with id ${String(id)}`);
    return doc;
  }

  private changed(doc: FakeDocument, extra: Record<string, unknown>): void {
    this.emit("imageChanged", JSON.stringify({ version: "1.6.1", timeStamp: Date.now() / 1000, count: ++this.changes, id: doc.id, ...extra }));
  }

  private switched(): void {
    this.emit("currentDocumentChanged", String(this.activeDoc ?? ""));
  }

  static entries(layers: FakeLayer[]): Entry[] {
    const slots = (ls: FakeLayer[]): number => ls.reduce((n, l) => n + (l.children ? 2 + slots(l.children) : 1), 0);
    const out: Entry[] = [];
    const walk = (ls: FakeLayer[], top: number, depth: number): number => {
      let index = top;
      for (const layer of ls) {
        out.push({ layer, index: index--, depth });
        if (layer.children) index = walk(layer.children, index, depth + 1) - 1;
      }
      return index;
    };
    walk(layers, slots(layers) - 1, 0);
    return out;
  }

  private static bounds(layer: FakeLayer): { left: number; top: number; right: number; bottom: number } {
    if (!layer.children) return { left: layer.left, top: layer.top, right: layer.right, bottom: layer.bottom };
    const parts = layer.children.map(FakeModel.bounds).filter((b) => b.right > b.left);
    if (parts.length === 0) return { left: 0, top: 0, right: 0, bottom: 0 };
    return {
      left: Math.min(...parts.map((b) => b.left)),
      top: Math.min(...parts.map((b) => b.top)),
      right: Math.max(...parts.map((b) => b.right)),
      bottom: Math.max(...parts.map((b) => b.bottom)),
    };
  }

  private info(entry: Entry, entries: Entry[], children: boolean): Record<string, unknown> {
    const { layer } = entry;
    const b = FakeModel.bounds(layer);
    const out: Record<string, unknown> = {
      id: layer.id,
      index: entry.index,
      name: layer.name,
      kind: layer.kind,
      visible: layer.visible,
      opacity: layer.opacity,
      blendMode: "normal",
      bounds: b,
      rect: { x: b.left, y: b.top, width: b.right - b.left, height: b.bottom - b.top },
      clipped: false,
    };
    if (children && layer.children) {
      out["children"] = layer.children.map((child) => this.info(entries.find((e) => e.layer === child)!, entries, true));
    }
    return out;
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
    return FakeModel.entries(doc.layers).filter((e) => doc.active.includes(e.layer.id));
  }

  private resolve(doc: FakeDocument, ref: { by: string; id?: number; index?: number }): Entry | null {
    const entries = FakeModel.entries(doc.layers);
    if (ref.by === "active") return this.activeEntries(doc)[0] ?? null;
    let found: Entry | undefined;
    if (ref.by === "selectionIndex") found = this.activeEntries(doc)[ref.index!];
    else if (ref.by === "id") found = entries.find((e) => e.layer.id === ref.id);
    else found = entries.find((e) => e.index === ref.index);
    if (!found) throw new Fail("LAYER_NOT_FOUND", `No layer for ${JSON.stringify(ref)}`);
    return found;
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
      case "document.layers": {
        const doc = this.doc(p["documentId"]);
        const entries = FakeModel.entries(doc.layers);
        return entries.filter((e) => e.depth === 0).map((e) => this.info(e, entries, true));
      }
      case "layer.get": {
        const doc = this.doc(p["documentId"]);
        const entry = this.resolve(doc, p["ref"]);
        return entry ? this.info(entry, FakeModel.entries(doc.layers), p["children"] === true) : null;
      }
      case "layer.select": {
        const doc = this.doc(p["documentId"]);
        const entries = FakeModel.entries(doc.layers);
        for (const id of p["ids"] as number[]) {
          if (!entries.some((e) => e.layer.id === id)) throw new Fail("LAYER_NOT_FOUND", `No layer with id ${id}`);
        }
        const before = JSON.stringify(doc.active);
        doc.active = entries.filter((e) => (p["ids"] as number[]).includes(e.layer.id)).map((e) => e.layer.id);
        if (JSON.stringify(doc.active) !== before) this.changed(doc, { selection: this.activeEntries(doc).map((e) => e.index) });
        return this.activeEntries(doc).map((e) => this.info(e, entries, false));
      }
      case "layer.active": {
        const doc = this.doc(p["documentId"]);
        const entries = FakeModel.entries(doc.layers);
        return this.activeEntries(doc).map((e) => this.info(e, entries, false));
      }
      case "layer.place": {
        const doc = this.doc(p["documentId"]);
        const target = p["above"] ? this.resolve(doc, p["above"]) : null;
        const meta = await sharp(await readFile(p["path"] as string)).metadata();
        const layer: FakeLayer = {
          id: this.nextLayerId++,
          name: p["name"],
          kind: "pixel",
          visible: true,
          opacity: 100,
          left: p["x"],
          top: p["y"],
          right: p["x"] + meta.width!,
          bottom: p["y"] + meta.height!,
          color: [0, 255, 0, 255],
        };
        const siblings = target ? this.parentList(doc.layers, target.layer) : doc.layers;
        siblings.splice(target ? siblings.indexOf(target.layer) : 0, 0, layer);
        doc.active = [layer.id];
        doc.dirty = true;
        const entries = FakeModel.entries(doc.layers);
        const entry = entries.find((e) => e.layer === layer)!;
        this.changed(doc, { layers: [{ id: layer.id, index: entry.index, added: true }], selection: [entry.index] });
        return this.info(entry, entries, false);
      }
      case "document.create": {
        const bg: Rgba = p["background"] === "transparent" ? [0, 0, 0, 0] : [255, 255, 255, 255];
        const layer: FakeLayer = { id: this.nextLayerId++, name: p["background"] === "transparent" ? "Layer 1" : "Background", kind: p["background"] === "transparent" ? "pixel" : "background", visible: true, opacity: 100, left: 0, top: 0, right: p["width"], bottom: p["height"], color: bg };
        const doc = this.add({ name: p["name"] ?? `Untitled-${this.docs.length + 1}`, width: p["width"], height: p["height"], layers: [layer], active: [layer.id], selection: null, dirty: false });
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
        return { documentId: doc.id };
      }
      case "document.save": {
        const doc = this.doc(p["documentId"]);
        const path = (p["path"] as string | undefined) ?? doc.filePath;
        if (!path) throw new Fail("BAD_REQUEST", "document has no file path; pass savePath");
        const names = FakeModel.entries(doc.layers).filter((e) => !e.layer.children).map((e) => e.layer.name).reverse();
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
        doc.selection = p["rect"] ?? null;
        this.changed(doc, { metaDataOnly: true });
        return doc.selection;
      }
      case "selection.shape": {
        const doc = this.doc(p["documentId"]);
        const shape = p["shape"] as { kind: string; rect?: { x: number; y: number; width: number; height: number }; points?: { x: number; y: number }[] };
        const xs = shape.rect ? [shape.rect.x, shape.rect.x + shape.rect.width] : shape.points!.map((q) => q.x);
        const ys = shape.rect ? [shape.rect.y, shape.rect.y + shape.rect.height] : shape.points!.map((q) => q.y);
        const [x0, y0] = [Math.max(0, Math.min(...xs)), Math.max(0, Math.min(...ys))];
        const [x1, y1] = [Math.min(doc.width, Math.max(...xs)), Math.min(doc.height, Math.max(...ys))];
        doc.selection = x1 > x0 && y1 > y0 ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : null;
        this.changed(doc, { metaDataOnly: true });
        return doc.selection;
      }
      case "selection.path": {
        const s = this.doc(p["documentId"]).selection;
        if (!s) return null;
        const e = p["expand"] ?? 0;
        const [x, y, w, h] = [s.x - e, s.y - e, s.width + 2 * e, s.height + 2 * e];
        return { svg: `M${x} ${y} L${x + w} ${y} L${x + w} ${y + h} L${x} ${y + h} Z`, x, y, width: w, height: h };
      }
      case "action.autoCutout": {
        const doc = this.doc(p["documentId"]);
        const entry = this.resolve(doc, p["layerId"] === undefined ? { by: "active" } : { by: "id", id: p["layerId"] });
        if (!entry) return false;
        const b = FakeModel.bounds(entry.layer);
        doc.selection = { x: b.left, y: b.top, width: b.right - b.left, height: b.bottom - b.top };
        this.changed(doc, { metaDataOnly: true });
        return true;
      }
      case "action.removeBackground":
        this.resolve(this.doc(p["documentId"]), p["layerId"] === undefined ? { by: "active" } : { by: "id", id: p["layerId"] });
        return { success: true };
      default:
        throw new Fail("JSX_FAILED", `the fake does not model ${op}`);
    }
  }

  private parentList(layers: FakeLayer[], child: FakeLayer): FakeLayer[] {
    if (layers.includes(child)) return layers;
    for (const l of layers) {
      if (l.children) {
        const found = this.parentList(l.children, child);
        if (found.includes(child)) return found;
      }
    }
    return layers;
  }

  /** Pixels of a layer (by id) or of the document composite, scaled with nearest-neighbour sampling. */
  pixels(p: { documentId?: number; layerId?: number; layerSpec?: unknown; scale?: number; scaleX?: number }): PixelSource {
    const doc = this.doc(p.documentId);
    const scale = p.scale ?? p.scaleX ?? 1;
    const layerId = p.layerId ?? (typeof p.layerSpec === "number" ? p.layerSpec : undefined);
    const entries = FakeModel.entries(doc.layers);
    if (layerId !== undefined) {
      const entry = entries.find((e) => e.layer.id === layerId);
      if (!entry) throw new Fail("LAYER_NOT_FOUND", `No layer with id ${layerId}`);
      const b = FakeModel.bounds(entry.layer);
      const leaves = entry.layer.children ? entries.filter((e) => !e.layer.children && this.isInside(entry.layer, e.layer)) : [entry];
      return this.render(b, leaves.map((e) => e.layer), scale);
    }
    const b = { left: 0, top: 0, right: doc.width, bottom: doc.height };
    return this.render(b, entries.filter((e) => !e.layer.children && e.layer.visible).map((e) => e.layer), scale);
  }

  private isInside(group: FakeLayer, layer: FakeLayer): boolean {
    return (group.children ?? []).some((c) => c === layer || this.isInside(c, layer));
  }

  private render(b: PixelSource["bounds"], topFirst: FakeLayer[], scale: number): PixelSource {
    const width = Math.max(0, Math.round((b.right - b.left) * scale));
    const height = Math.max(0, Math.round((b.bottom - b.top) * scale));
    const bottomUp = [...topFirst].reverse();
    return {
      bounds: b,
      width,
      height,
      argbAt: (x, y) => {
        const dx = b.left + (x + 0.5) / scale;
        const dy = b.top + (y + 0.5) / scale;
        let out: [number, number, number, number] = [0, 0, 0, 0];
        for (const l of bottomUp) {
          if (dx >= l.left && dx < l.right && dy >= l.top && dy < l.bottom && l.color[3] > 0) {
            out = [Math.round((l.color[3] * l.opacity) / 100), l.color[0], l.color[1], l.color[2]];
          }
        }
        return out;
      },
    };
  }
}
