/**
 * Random edit sequences on generated layered documents, saved and opened again: whatever the edits, the tree read
 * back (by the bridge and by ag-psd) is the tree a plain model of the same edits holds. The documents have nested
 * and empty groups, masks, clipped and hidden layers, and a text layer whose record comes from a real Photoshop
 * file, so the save's kept records and group dividers meet every edit.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readPsd, writePsdBuffer } from "ag-psd";
import type { Layer, Psd } from "ag-psd";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostAdapter } from "../../../src/hosts/host.js";
import type { HostLayer } from "../../../src/protocol/index.js";
import type { InfoBlock, LayerRecord } from "../../../src/hosts/embedded/psd-file/layers.js";
import { withBlocks } from "../../../src/hosts/embedded/psd-file/layers.js";
import { readPsdFile, writePsdFile } from "../../../src/hosts/embedded/psd-file/sections.js";
import { solid } from "../../helpers/psd-fixtures.js";
import { connectedHost, ctx, importBytes, runJs, solidPng } from "./helpers.js";

/** Sequences run, in batches of their own so that each stays well inside a test's deadline on a loaded machine. */
const BATCHES = 10;
const RUNS_PER_BATCH = 50;
/** A batch's deadline: generous, since a loaded 2-core machine runs a script sandbox in tens of milliseconds. */
const BATCH_TIMEOUT_MS = 240_000;
/** Edits in one sequence, at most. */
const MAX_EDITS = 8;
const EDGE = 6;

type Kind = "pixel" | "group" | "text";

/** A generated layer before it is written: what the model tracks, plus what the file holds. */
interface GenLayer {
  readonly kind: Kind;
  readonly name: string;
  readonly hidden: boolean;
  readonly clipped: boolean;
  readonly masked: boolean;
  readonly children: GenLayer[];
}

/** What every reader can tell of a layer. */
interface Shape {
  name: string;
  visible: boolean;
  group: boolean;
  children: Shape[];
}

/** The model's node: a shape with the layer's id. */
interface Node {
  id: number;
  name: string;
  visible: boolean;
  group: boolean;
  children: Node[];
}

const genLayer: fc.Memo<GenLayer> = fc.memo((depth: number) =>
  fc.record({
    kind: depth > 1 ? fc.constantFrom<Kind>("pixel", "pixel", "group", "text") : fc.constantFrom<Kind>("pixel", "text"),
    name: fc.constantFrom("a", "b", "Layer 1", "Ünïcode ✓", "x y"),
    hidden: fc.boolean(),
    clipped: fc.boolean(),
    masked: fc.boolean(),
    children: depth > 1 ? fc.array(genLayer(depth - 1), { maxLength: 3 }) : fc.constant([]),
  }),
);

type Edit =
  | { readonly op: "import"; readonly where: "top" | "above" | "into"; readonly pick: number }
  | { readonly op: "delete"; readonly pick: number }
  | { readonly op: "toggle"; readonly pick: number }
  | { readonly op: "rename"; readonly pick: number; readonly name: string }
  | { readonly op: "move"; readonly pick: number; readonly to: "above" | "below" | "parent" | "top" | "bottom"; readonly target: number };

const genEdit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constant("import" as const), where: fc.constantFrom("top" as const, "above" as const, "into" as const), pick: fc.nat() }),
  fc.record({ op: fc.constant("delete" as const), pick: fc.nat() }),
  fc.record({ op: fc.constant("toggle" as const), pick: fc.nat() }),
  fc.record({ op: fc.constant("rename" as const), pick: fc.nat(), name: fc.constantFrom("renamed", "Ренамед", "r ✓") }),
  fc.record({
    op: fc.constant("move" as const),
    pick: fc.nat(),
    to: fc.constantFrom("above" as const, "below" as const, "parent" as const, "top" as const, "bottom" as const),
    target: fc.nat(),
  }),
);

/**
 * Marks a text layer's record (its `lyid`, at or above this) where ag-psd writes it without its text: the text
 * block, the same for every text layer, is written once and put in by {@link asPhotoshopWrites}.
 */
const TEXT_MARK = 1_000_000;

/**
 * ag-psd layers (bottom first) of generated ones (top first). With `text`, ag-psd writes the real file's text
 * record in each text layer; without, it leaves the text block out and marks the layer for `asPhotoshopWrites`.
 */
function toAgPsd(layers: readonly GenLayer[], text?: Layer, marks = { next: TEXT_MARK }): Layer[] {
  return layers
    .map((layer, i): Layer => {
      const common: Layer = { name: layer.name, hidden: layer.hidden };
      if (layer.kind === "group") return { ...common, opened: true, children: toAgPsd(layer.children, text, marks) };
      // Clipping onto the layer below it, when there is one in the same list.
      const clipping = layer.clipped && i < layers.length - 1;
      const mask = layer.masked ? { mask: { top: 1, left: 1, bottom: 4, right: 4, defaultColor: 0, imageData: solid(3, 3, [255, 255, 255, 255]) } } : {};
      if (layer.kind === "text") {
        const record = text === undefined ? { id: marks.next++ } : { text: text.text };
        return { ...common, clipping, ...record, left: 0, top: 0, imageData: solid(EDGE, 2, [0, 0, 0, 255]), ...mask };
      }
      return { ...common, clipping, left: i % 3, top: 1, imageData: solid(EDGE - 2, EDGE - 2, [40 * i, 90, 200, 255]), ...mask };
    })
    .reverse();
}

/**
 * ag-psd gives no id to the hidden record that closes a group; Photoshop gives every record one, those included.
 * Numbered here after the layers', as a file whose groups were made last has them. A record marked by `toAgPsd`
 * gets `textBlock` first, where ag-psd writes a text layer's (ag-psd encodes the text's engine data again for
 * every layer: most of the time spent making a document).
 */
function asPhotoshopWrites(bytes: Uint8Array, textBlock?: InfoBlock): Uint8Array {
  const file = readPsdFile(bytes);
  const closing = (layer: LayerRecord): boolean => layer.blocks.some((block) => block.key === "lsct" && block.data[3] === 3);
  const records = file.layers.layers;
  let next = 1;
  const ids = new Map<LayerRecord, number>();
  for (const layer of records.filter((record) => !closing(record))) ids.set(layer, next++);
  for (const layer of records.filter(closing)) ids.set(layer, next++);
  const lyid = (id: number): InfoBlock => {
    const data = new Uint8Array(4);
    new DataView(data.buffer).setUint32(0, id);
    return { signature: "8BIM", key: "lyid", data };
  };
  const marked = (layer: LayerRecord): boolean => layer.blocks.some((block) => block.key === "lyid" && new DataView(block.data.buffer, block.data.byteOffset).getUint32(0) >= TEXT_MARK);
  const layers = records.map((layer) => {
    const text = marked(layer) ? [textBlock!] : [];
    return withBlocks(layer, [...text, ...layer.blocks.filter((block) => block.key !== "lyid"), lyid(ids.get(layer)!)], false);
  });
  return writePsdFile({ ...file, layers: { ...file.layers, layers } });
}

/** The ag-psd document of generated layers on a white background (see `toAgPsd` for `text`). */
const psdOf = (layers: readonly GenLayer[], text?: Layer): Psd => ({ width: EDGE, height: EDGE, imageData: solid(EDGE, EDGE, [255, 255, 255, 255]), children: toAgPsd(layers, text) });

const fromHost = (layers: readonly HostLayer[]): Node[] =>
  layers.map((layer) => ({ id: layer.id, name: layer.name, visible: layer.visible, group: layer.kind === "group", children: fromHost(layer.children ?? []) }));

const fromAgPsd = (layers: readonly Layer[]): Shape[] =>
  layers
    .slice()
    .reverse()
    .map((layer) => ({ name: layer.name ?? "", visible: layer.hidden !== true, group: layer.children !== undefined, children: fromAgPsd(layer.children ?? []) }));

const withoutIds = (nodes: readonly Node[]): Shape[] =>
  nodes.map(({ name, visible, group, children }) => ({ name, visible, group, children: withoutIds(children) }));

/** The model: a plain tree and the edits on it, written apart from the editor. */
class Model {
  constructor(readonly roots: Node[]) {}

  all(list = this.roots): Node[] {
    return list.flatMap((node) => [node, ...this.all(node.children)]);
  }

  holder(id: number, list = this.roots): Node[] | undefined {
    for (const node of list) {
      if (node.id === id) return list;
      const inner = this.holder(id, node.children);
      if (inner) return inner;
    }
    return undefined;
  }

  contains(outer: Node, id: number): boolean {
    return outer.id === id || outer.children.some((child) => this.contains(child, id));
  }

  take(id: number): Node {
    const list = this.holder(id)!;
    return list.splice(
      list.findIndex((node) => node.id === id),
      1,
    )[0]!;
  }
}

describe("random edit sequences on layered documents save as the tree they made", () => {
  let host: HostAdapter;
  let dir: string;
  let text: Layer;
  let textBlock: InfoBlock;
  let square: Buffer;

  beforeAll(async () => {
    host = await connectedHost({ sample: false });
    dir = await mkdtemp(join(tmpdir(), "psd-sequences-"));
    const real = readPsd(await readFile(join(import.meta.dirname, "../../fixtures/psd/psd-tools/layers/type-layer.psd")), {
      skipLayerImageData: true,
      skipCompositeImageData: true,
      skipThumbnail: true,
    });
    const all = (layers: readonly Layer[]): Layer[] => layers.flatMap((layer) => [layer, ...all(layer.children ?? [])]);
    text = all(real.children ?? []).find((layer) => layer.text !== undefined)!;
    expect(text, "a text layer in the real file").toBeDefined();
    textBlock = readPsdFile(writePsdBuffer(psdOf([{ kind: "text", name: "t", hidden: false, clipped: false, masked: false, children: [] }], text))).layers.layers[0]!.blocks.find(
      (block) => block.key === "TySh",
    )!;
    // The file with the text block put in is the very file ag-psd writes with the text.
    const both: GenLayer[] = [
      { kind: "group", name: "g", hidden: false, clipped: false, masked: false, children: [{ kind: "text", name: "a", hidden: true, clipped: true, masked: true, children: [] }] },
      { kind: "text", name: "b", hidden: false, clipped: false, masked: false, children: [] },
      { kind: "pixel", name: "c", hidden: false, clipped: false, masked: true, children: [] },
    ];
    expect(Buffer.from(asPhotoshopWrites(writePsdBuffer(psdOf(both)), textBlock))).toEqual(Buffer.from(asPhotoshopWrites(writePsdBuffer(psdOf(both, text)))));
    square = await solidPng(2, 2, [255, 0, 0, 255]);
  });
  afterAll(async () => {
    await host?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.each(Array.from({ length: BATCHES }, (_, i) => i + 1))(`sequences batch %i of ${BATCHES} (${RUNS_PER_BATCH} each): the bridge and ag-psd read back the model's tree`, async (batch) => {
    let run = batch * RUNS_PER_BATCH;
    await fc.assert(
      fc.asyncProperty(fc.array(genLayer(3), { minLength: 1, maxLength: 4 }), fc.array(genEdit, { minLength: 1, maxLength: MAX_EDITS }), async (layers, edits) => {
        run++;
        const source = join(dir, `source-${run}.psd`);
        await writeFile(source, asPhotoshopWrites(writePsdBuffer(psdOf(layers)), textBlock));
        const doc = await host.openDocument!(ctx(), source);
        try {
          const model = new Model(fromHost((await host.getDocumentTree(ctx(), doc.id)).layers));
          const script: string[] = [];
          for (const edit of edits) await apply(edit, model, doc.id, script);
          await flush(script);
          const saved = join(dir, `saved-${run}.psd`);
          await host.saveDocument!(ctx(), { documentId: doc.id, path: saved, backup: false });
          const reopened = await host.openDocument!(ctx(), saved);
          try {
            // A file left with no layer records is a flattened file: it opens as its merged image, one Background.
            const bridgeExpects = model.roots.length > 0 ? withoutIds(model.roots) : [{ name: "Background", visible: true, group: false, children: [] }];
            expect(withoutIds(fromHost((await host.getDocumentTree(ctx(), reopened.id)).layers))).toEqual(bridgeExpects);
            const agPsd = readPsd(await readFile(saved), { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true });
            // ag-psd writes one empty, nameless record for a document with no layers (and reads it back).
            const agPsdExpects = model.roots.length > 0 ? withoutIds(model.roots) : [{ name: "", visible: true, group: false, children: [] }];
            expect(fromAgPsd(agPsd.children ?? [])).toEqual(agPsdExpects);
          } finally {
            await host.closeDocument!(ctx(), reopened.id);
            await rm(saved, { force: true });
          }
        } finally {
          await host.closeDocument!(ctx(), doc.id);
          await rm(source, { force: true });
        }
      }),
      { numRuns: RUNS_PER_BATCH },
    );
  }, BATCH_TIMEOUT_MS);

  /** Runs the script statements gathered so far as one script (a sandbox per statement would dominate the time). */
  async function flush(script: string[]): Promise<void> {
    if (script.length === 0) return;
    await runJs(host, `const doc = app.activeDocument;\n${script.join("\n")}`);
    script.length = 0;
  }

  /** Runs one edit on the editor and on the model; an edit that finds nothing to act on is skipped on both. */
  async function apply(edit: Edit, model: Model, documentId: number, script: string[]): Promise<void> {
    const all = model.all();
    const layer = all.length === 0 ? undefined : all[edit.pick % all.length]!;
    const js = (source: string): void => {
      script.push(source);
    };
    switch (edit.op) {
      case "import": {
        const groups = all.filter((node) => node.group);
        const into = edit.where === "into" ? groups[edit.pick % Math.max(1, groups.length)] : undefined;
        const above = edit.where === "above" ? layer : undefined;
        await flush(script);
        const id = await importBytes(host, square, { documentId, name: "imported", aboveLayerId: above?.id ?? null });
        const node: Node = { id, name: "imported", visible: true, group: false, children: [] };
        if (into !== undefined) {
          js(`doc.layerById(${id}).move({ parent: ${into.id} });`);
          into.children.unshift(node);
        } else if (above !== undefined) {
          const list = model.holder(above.id)!;
          list.splice(list.indexOf(above), 0, node);
        } else model.roots.unshift(node);
        return;
      }
      case "delete":
        if (layer === undefined) return;
        js(`doc.layerById(${layer.id}).remove();`);
        model.take(layer.id);
        return;
      case "toggle":
        if (layer === undefined) return;
        js(`doc.layerById(${layer.id}).visible = ${!layer.visible};`);
        layer.visible = !layer.visible;
        return;
      case "rename":
        if (layer === undefined) return;
        js(`doc.layerById(${layer.id}).name = ${JSON.stringify(edit.name)};`);
        layer.name = edit.name;
        return;
      case "move": {
        if (layer === undefined) return;
        if (edit.to === "top" || edit.to === "bottom") {
          js(`doc.layerById(${layer.id}).move({ to: "${edit.to}" });`);
          model.take(layer.id);
          if (edit.to === "top") model.roots.unshift(layer);
          else model.roots.push(layer);
          return;
        }
        const candidates = all.filter((node) => !model.contains(layer, node.id) && (edit.to !== "parent" || node.group));
        const target = candidates[edit.target % Math.max(1, candidates.length)];
        if (target === undefined) return;
        js(`doc.layerById(${layer.id}).move({ ${edit.to}: ${target.id} });`);
        model.take(layer.id);
        if (edit.to === "parent") target.children.unshift(layer);
        else {
          const list = model.holder(target.id)!;
          list.splice(list.indexOf(target) + (edit.to === "below" ? 1 : 0), 0, layer);
        }
        return;
      }
    }
  }
});
