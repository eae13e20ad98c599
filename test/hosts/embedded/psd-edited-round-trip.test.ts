/**
 * Every file of the PSD fidelity corpus, edited as a user would before saving — a layer imported at the top and
 * one inside the deepest group, a layer deleted, one hidden, one renamed, one moved out of its group — then saved
 * to a new path and opened again by three readers: the bridge, ag-psd and psd.js (an independent parser). The tree
 * each reads back must be the tree the edits should make (worked out here from the tree before the edits, not
 * asked of the editor), and the composite outside what the edits touched must be what it was.
 *
 * Saves that would drop something are refused by name (`WOULD_LOSE_DATA` through the methods) and counted apart:
 * the test then agrees to the loss and checks the file all the same.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { readPsd } from "ag-psd";
import type { Layer } from "ag-psd";
import PSD from "psd";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corpusFile, loadManifest } from "../../../scripts/psd-fidelity/manifest.js";
import { toReadablePsd } from "../../../src/hosts/embedded/psd-file/index.js";
import type { HostAdapter } from "../../../src/hosts/host.js";
import type { HostLayer, HostRect } from "../../../src/protocol/index.js";
import { connectedHost, ctx, exportDocument, flatten, importBytes, rawPixels, runJs, solidPng } from "./helpers.js";

/** A layer as every reader can tell it: its name, whether it is shown, and a group's children (top first). */
interface TreeNode {
  readonly name: string;
  readonly visible: boolean;
  readonly children?: TreeNode[];
}

/** Edge of the imported squares. */
const IMPORT_EDGE = 8;
/** Largest difference of one channel allowed between composites read at 8 bits from the same layers. */
const CHANNEL_TOLERANCE = 2;

const manifest = await loadManifest();
const entries = manifest.files.filter((entry) => entry.expected?.open === "opens");

const fromHost = (layers: readonly HostLayer[]): TreeNode[] =>
  layers.map((layer) => ({
    name: layer.name,
    visible: layer.visible,
    ...(layer.kind === "group" ? { children: fromHost(layer.children ?? []) } : {}),
  }));

/** ag-psd lists children bottom first. */
const fromAgPsd = (layers: readonly Layer[]): TreeNode[] =>
  layers
    .slice()
    .reverse()
    .map((layer) => ({
      name: layer.name ?? "",
      visible: layer.hidden !== true,
      ...(layer.children !== undefined ? { children: fromAgPsd(layer.children) } : {}),
    }));

interface PsdJsNode {
  name: string;
  layer: { visible: boolean };
  isGroup(): boolean;
  children(): PsdJsNode[];
}
const fromPsdJs = (nodes: readonly PsdJsNode[]): TreeNode[] =>
  nodes.map((node) => ({ name: node.name, visible: node.layer.visible, ...(node.isGroup() ? { children: fromPsdJs(node.children()) } : {}) }));

/** ag-psd reads 8-bit RGB and grey files only: other modes are read from the editor's 8-bit copy (the same records). */
function readWithAgPsd(bytes: Uint8Array): Layer[] {
  const options = { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true, skipLinkedFilesData: true };
  try {
    return readPsd(bytes, options).children ?? [];
  } catch (error) {
    if (!/Color mode not supported|bits per channel/i.test(String(error))) throw error;
    return readPsd(toReadablePsd(bytes).bytes, options).children ?? [];
  }
}

/** Ids of the layers whose records hold layer effects (drawn past the layer's own pixels). */
function layersWithEffects(layers: readonly Layer[], out = new Set<number>()): Set<number> {
  for (const layer of layers) {
    if (layer.effects !== undefined && layer.id !== undefined) out.add(layer.id);
    if (layer.children) layersWithEffects(layer.children, out);
  }
  return out;
}

/** The tree as psd.js reads it, or undefined for a PSB (psd.js reads the PSD format only). */
function readWithPsdJs(bytes: Buffer, psb: boolean): TreeNode[] | undefined {
  if (psb) return undefined;
  const psd = new PSD(bytes);
  psd.parse();
  return fromPsdJs(psd.tree().children());
}

/** What the edits do to a plain tree, so the expected result never comes from the editor under test. */
class TreeModel {
  constructor(readonly roots: Array<TreeNode & { id: number }>) {}

  static of(layers: readonly HostLayer[]): TreeModel {
    const copy = (list: readonly HostLayer[]): Array<TreeNode & { id: number }> =>
      list.map((layer) => ({ id: layer.id, name: layer.name, visible: layer.visible, ...(layer.kind === "group" ? { children: copy(layer.children ?? []) } : {}) }));
    return new TreeModel(copy(layers));
  }

  /** The list holding `id` and its place in it. */
  private find(id: number, list = this.roots): { list: Array<TreeNode & { id: number }>; at: number } | undefined {
    for (const [at, node] of list.entries()) {
      if (node.id === id) return { list, at };
      const inner = node.children ? this.find(id, node.children as Array<TreeNode & { id: number }>) : undefined;
      if (inner) return inner;
    }
    return undefined;
  }

  private node(id: number): TreeNode & { id: number } {
    const place = this.find(id)!;
    return place.list[place.at]!;
  }

  insertAbove(node: TreeNode & { id: number }, aboveId: number | null): void {
    if (aboveId === null) this.roots.unshift(node);
    else {
      const place = this.find(aboveId)!;
      place.list.splice(place.at, 0, node);
    }
  }

  insertInto(node: TreeNode & { id: number }, groupId: number): void {
    (this.node(groupId).children as Array<TreeNode & { id: number }>).unshift(node);
  }

  remove(id: number): TreeNode & { id: number } {
    const place = this.find(id)!;
    return place.list.splice(place.at, 1)[0]!;
  }

  set(id: number, change: { name?: string; visible?: boolean }): void {
    const place = this.find(id)!;
    place.list[place.at] = { ...place.list[place.at]!, ...change };
  }

  moveAbove(id: number, aboveId: number): void {
    const node = this.remove(id);
    this.insertAbove(node, aboveId);
  }

  tree(): TreeNode[] {
    const strip = (list: ReadonlyArray<TreeNode & { id?: number }>): TreeNode[] =>
      list.map((node) => ({ name: node.name, visible: node.visible, ...(node.children ? { children: strip(node.children) } : {}) }));
    return strip(this.roots);
  }
}

interface Edits {
  /** Rectangles whose pixels the edits may change. */
  readonly touched: HostRect[];
  readonly expected: TreeNode[];
  /** The edits that found no layer to act on in this file. */
  readonly skipped: string[];
}

/** Parent group id of every layer (undefined at the top). */
function parents(layers: readonly HostLayer[], parent?: number, out = new Map<number, number | undefined>()): Map<number, number | undefined> {
  for (const layer of layers) {
    out.set(layer.id, parent);
    if (layer.kind === "group") parents(layer.children ?? [], layer.id, out);
  }
  return out;
}

/** Depth of every group (1 at the top). */
function deepestGroup(layers: readonly HostLayer[], depth = 1): { group: HostLayer; depth: number } | undefined {
  let best: { group: HostLayer; depth: number } | undefined;
  for (const layer of layers.filter((candidate) => candidate.kind === "group")) {
    const inner = deepestGroup(layer.children ?? [], depth + 1) ?? { group: layer, depth };
    if (best === undefined || inner.depth > best.depth) best = inner;
  }
  return best;
}

/** A layer's pixels' box in document pixels, or undefined when it has none. */
const boxOf = (layer: HostLayer): HostRect | undefined => (layer.rect.width > 0 && layer.rect.height > 0 ? layer.rect : undefined);

/**
 * Applies the edit set to the open document (whose tree is `before`) and works out the tree it should give.
 * Layers are picked in a fixed order among plain pixel layers where the file has them (their pixels are theirs
 * alone), never the background.
 */
async function applyEdits(
  host: HostAdapter,
  documentId: number,
  before: readonly HostLayer[],
  canvas: { width: number; height: number },
  effects: ReadonlySet<number>,
): Promise<Edits> {
  const model = TreeModel.of(before);
  const all = flatten(before);
  const parentOf = parents(before);
  const touched: HostRect[] = [];
  const skipped: string[] = [];
  const used = new Set<number>();
  // The script edits run as one script at the end, in this order: a sandbox per edit would cost more than the edits.
  const script: string[] = [];
  // Grey: a grey or CMYK file saves a colour layer in its own mode, and the check is of the save, not of that.
  const square = await solidPng(IMPORT_EDGE, IMPORT_EDGE, [128, 128, 128, 255]);

  // A plain layer not used yet; clipped layers and the layers clipped onto them change what others show.
  const pick = (where: (layer: HostLayer) => boolean): HostLayer | undefined => {
    const fits = all.filter((layer) => !used.has(layer.id) && layer.kind !== "background" && layer.kind !== "group" && where(layer));
    const isPlain = (layer: HostLayer): boolean => layer.kind === "pixel" && layer.clipped !== true && !clipBase(layer) && !effects.has(layer.id);
    const found = fits.find(isPlain) ?? fits[0];
    if (found) {
      used.add(found.id);
      if (boxOf(found) === undefined || !isPlain(found)) touched.push({ x: 0, y: 0, ...canvas });
      else touched.push(found.rect);
    }
    return found;
  };
  function clipBase(layer: HostLayer): boolean {
    const siblings = parentOf.get(layer.id) === undefined ? before : (all.find((l) => l.id === parentOf.get(layer.id))?.children ?? []);
    const at = siblings.findIndex((l) => l.id === layer.id);
    return at > 0 && siblings[at - 1]?.clipped === true;
  }

  // 1. A layer imported at the top.
  const top = await importBytes(host, square, { documentId, name: "Imported top", position: { x: 0, y: 0 } });
  model.insertAbove({ id: top, name: "Imported top", visible: true }, null);
  touched.push({ x: 0, y: 0, width: IMPORT_EDGE, height: IMPORT_EDGE });

  // 2. One imported inside the deepest group (moved into it when the group is empty).
  const deepest = deepestGroup(before);
  if (deepest === undefined) skipped.push("import into a group");
  else {
    const first = deepest.group.children?.[0];
    const name = "Imported in group";
    const inner = await importBytes(host, square, { documentId, name, position: { x: IMPORT_EDGE, y: IMPORT_EDGE }, aboveLayerId: first?.id ?? null });
    if (first === undefined) script.push(`doc.layerById(${inner}).move({ parent: ${deepest.group.id} });`);
    model.insertInto({ id: inner, name, visible: true }, deepest.group.id);
    // Inside a group its pixels take the group's blending, mask and effects: the whole canvas may differ.
    touched.push({ x: 0, y: 0, ...canvas });
  }

  // 3. A layer deleted.
  const gone = pick(() => true);
  if (gone === undefined) skipped.push("delete");
  else {
    script.push(`doc.layerById(${gone.id}).remove();`);
    model.remove(gone.id);
  }

  // 4. A shown layer hidden.
  const hidden = pick((layer) => layer.visible);
  if (hidden === undefined) skipped.push("hide");
  else {
    script.push(`doc.layerById(${hidden.id}).visible = false;`);
    model.set(hidden.id, { visible: false });
  }

  // 5. A layer renamed (its pixels stay: nothing touched).
  const renamed = all.find((layer) => !used.has(layer.id) && layer.kind !== "group");
  if (renamed === undefined) skipped.push("rename");
  else {
    used.add(renamed.id);
    script.push(`doc.layerById(${renamed.id}).name = "Renamed ✓";`);
    model.set(renamed.id, { name: "Renamed ✓" });
  }

  // 6. A layer moved out of its group, just above the group.
  const moved = pick((layer) => parentOf.get(layer.id) !== undefined);
  if (moved === undefined) skipped.push("move out of a group");
  else {
    const group = parentOf.get(moved.id)!;
    script.push(`doc.layerById(${moved.id}).move({ above: ${group} });`);
    model.moveAbove(moved.id, group);
    touched.push({ x: 0, y: 0, ...canvas });
  }
  if (script.length > 0) await runJs(host, `const doc = app.activeDocument;\n${script.join("\n")}`);
  return { touched, expected: model.tree(), skipped };
}

/** Whether a rectangle holds every pixel of an image. */
const covers = (r: HostRect, image: { width: number; height: number }): boolean => r.x <= 0 && r.y <= 0 && r.x + r.width >= image.width && r.y + r.height >= image.height;

/** Pixels outside every touched rectangle that differ by more than the tolerance. */
function differingOutside(a: { data: Buffer; width: number; height: number }, b: { data: Buffer }, touched: readonly HostRect[]): number {
  // The touched pixels, marked once rather than every rectangle tested at every pixel.
  const inside = new Uint8Array(a.width * a.height);
  for (const r of touched) {
    const [x0, x1] = [Math.max(0, r.x), Math.min(a.width, r.x + r.width)];
    for (let y = Math.max(0, r.y); y < Math.min(a.height, r.y + r.height); y++) if (x1 > x0) inside.fill(1, y * a.width + x0, y * a.width + x1);
  }
  let count = 0;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      if (inside[y * a.width + x] === 1) continue;
      const i = (y * a.width + x) * 4;
      for (let c = 0; c < 4; c++) {
        if (Math.abs(a.data[i + c]! - b.data[i + c]!) > CHANNEL_TOLERANCE) {
          count++;
          break;
        }
      }
    }
  }
  return count;
}

describe("edited PSDs of the corpus save as files every reader opens", () => {
  let host: HostAdapter;
  let dir: string;
  const refused: Array<{ path: string; kinds: string[] }> = [];
  /** Files whose original psd.js does not read as the bridge does (layers in 16/32-bit blocks, some records): no referee there. */
  const psdJsBlind: string[] = [];

  beforeAll(async () => {
    host = await connectedHost({ sample: false });
    dir = await mkdtemp(join(tmpdir(), "psd-edited-"));
  });
  afterAll(async () => {
    await host?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    if (refused.length > 0) {
      console.log(`Edited saves refused by name (WOULD_LOSE_DATA), then saved with the loss agreed: ${refused.length}`);
      for (const r of refused) console.log(`  ${r.path}: ${r.kinds.join(", ")}`);
    }
    if (psdJsBlind.length > 0) console.log(`psd.js does not read the originals of ${psdJsBlind.length} file(s) either: ${psdJsBlind.join(", ")}`);
  });

  it.each(entries.map((entry: { path: string }) => [entry.path]))("%s", async (path: string) => {
    const source = corpusFile({ path });
    const doc = await host.openDocument!(ctx(), source);
    // An import into a group may change every pixel (see applyEdits): with a group, nothing of the original is
    // left to compare, so it is neither exported nor decoded.
    const opened = (await host.getDocumentTree(ctx(), doc.id)).layers;
    const grouped = deepestGroup(opened) !== undefined;
    const original = grouped ? undefined : await rawPixels((await exportDocument(host, { documentId: doc.id })).bytes);
    const psb = extname(path).toLowerCase() === ".psb";
    const sourceBytes = await readFile(source);
    // psd.js referees a file only where it reads the unedited original as the bridge does.
    const psdJsReads = !psb && JSON.stringify(readWithPsdJs(sourceBytes, psb)) === JSON.stringify(fromHost(opened));
    if (!psb && !psdJsReads) psdJsBlind.push(path);
    const edits = await applyEdits(host, doc.id, opened, doc, layersWithEffects(readWithAgPsd(sourceBytes)));
    const edited = (await exportDocument(host, { documentId: doc.id })).bytes;
    expect(fromHost((await host.getDocumentTree(ctx(), doc.id)).layers), "the editor's own tree after the edits").toEqual(edits.expected);

    const ext = extname(path).toLowerCase();
    const target = join(dir, `${path.replaceAll("/", "_")}${ext}`);
    const losses = (await host.saveLosses?.(ctx(), { documentId: doc.id, path: target })) ?? [];
    if (losses.length > 0) refused.push({ path, kinds: losses.map((loss) => loss.kind) });
    await host.saveDocument!(ctx(), { documentId: doc.id, path: target, backup: false });
    await host.closeDocument!(ctx(), doc.id);

    const bytes = await readFile(target);
    const reopened = await host.openDocument!(ctx(), target);
    try {
      expect(fromHost((await host.getDocumentTree(ctx(), reopened.id)).layers), "the bridge").toEqual(edits.expected);
      expect(fromAgPsd(readWithAgPsd(bytes)), "ag-psd").toEqual(edits.expected);
      if (psdJsReads) expect(readWithPsdJs(bytes, psb), "psd.js").toEqual(edits.expected);

      const savedBytes = (await exportDocument(host, { documentId: reopened.id })).bytes;
      const saved = await rawPixels(savedBytes);
      if (original === undefined) expect(edits.touched.some((r) => covers(r, saved)), "the edits touched the whole canvas").toBe(true);
      else expect(differingOutside(saved, original, edits.touched), "the reopened composite outside the edits").toBe(0);
      // The same encoder's same bytes are the same pixels: the edited composite is decoded only when they differ.
      const editedPixels = Buffer.compare(savedBytes, edited) === 0 ? saved : await rawPixels(edited);
      expect(differingOutside(saved, editedPixels, []), "the reopened composite against the edited one").toBe(0);
    } finally {
      await host.closeDocument!(ctx(), reopened.id);
    }
  });
});
