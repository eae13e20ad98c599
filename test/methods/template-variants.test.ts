import { access, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readPsd, writePsdBuffer } from "ag-psd";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { runClientCommand } from "../../src/client/cli.js";
import { ensureCanvasFactory } from "../../src/hosts/embedded/psd.js";
import type { MethodDefinition } from "../../src/methods/index.js";
import { namePattern } from "../../src/methods/template.js";
import { type Harness, startSuiteBridge } from "../helpers/bridge.js";
import { solid } from "../helpers/psd-fixtures.js";
import { BADGE_AT, byHand, CARD, type CardVariant, cardTemplatePsd, pixels, pngOf } from "../helpers/template-card.js";
import type { Frame, TestClient } from "../helpers/ws-client.js";

/*
 * `template:render` of a product card's table on `embedded ×2` (inline editors: the job's spread and its steps are
 * the subject, not the process boundary), one bridge for the file: 20 variants each equal to the same edits made one
 * method at a time, their headlines read back from each variant's PSD by ag-psd, visibility by name pattern, a cancel
 * in the middle of a job, and bad rows failing alone.
 */

const EDITORS = 2;

type Outcome = { id: string; ok: boolean; path?: string; error?: { code: string; message: string; details?: Record<string, unknown> } };

/**
 * `test:gate`, a variant's extra edit: records each call's `step`, and holds the calls with `hold` until `release()`,
 * so a test can cancel while chosen variants are known to be in the middle of their steps.
 */
function gate(holds: number): { method: MethodDefinition; steps: string[]; held: Promise<void>; release(): void } {
  const steps: string[] = [];
  let count = 0;
  let allHeld!: () => void;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (allHeld = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const method: MethodDefinition = {
    name: "test:gate",
    params: z.object({ step: z.string(), hold: z.boolean().optional(), documentId: z.number().int() }).strict(),
    result: z.null(),
    host: false,
    mutates: false,
    fields: new Map(),
    run: async (_ctx, params) => {
      const { step, hold } = params as { step: string; hold?: boolean };
      steps.push(step);
      if (hold === true) {
        count += 1;
        if (count === holds) allHeld();
        await released;
      }
      return null;
    },
  };
  return { method, steps, held, release };
}

const cancelGate = gate(EDITORS);

let dir: string;
let card: string;
let cardBytes: Buffer;
let dots: string;
let harness: Harness & { close(): Promise<void> };
let client: TestClient;

/**
 * Four layers for name patterns: a white background and three 10×10 squares, "Dot*" red at (5, 5), "Dot1" green at
 * (25, 5) and "Dot2" blue at (45, 5): the first's name is itself a pattern that matches the other two.
 */
function dotsPsd(): Buffer {
  ensureCanvasFactory();
  const square = (name: string, left: number, rgba: [number, number, number, number]) => ({ name, left, top: 5, imageData: solid(10, 10, rgba) });
  return writePsdBuffer({
    width: 60,
    height: 20,
    imageData: solid(60, 20, [255, 255, 255, 255]),
    children: [
      { name: "Background", imageData: solid(60, 20, [255, 255, 255, 255]) },
      square("Dot*", 5, [255, 0, 0, 255]),
      square("Dot1", 25, [0, 255, 0, 255]),
      square("Dot2", 45, [0, 0, 255, 255]),
    ],
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "template-variants-"));
  await Promise.all(["out", "ref", "psd"].map((sub) => mkdir(join(dir, sub))));
  card = join(dir, "card.psd");
  cardBytes = await cardTemplatePsd();
  await writeFile(card, cardBytes);
  dots = join(dir, "dots.psd");
  await writeFile(dots, dotsPsd());
  harness = await startSuiteBridge({
    editors: EDITORS,
    embedded: { isolation: "inline" },
    files: { roots: [dir] },
    limits: { progressIntervalMs: 0 },
    methods: [cancelGate.method],
  });
  client = await harness.connect();
}, 120_000);

afterAll(async () => {
  cancelGate.release();
  await harness?.close();
  await rm(dir, { recursive: true, force: true });
});

function sendFrame(frame: Record<string, unknown>): Promise<Frame> {
  client.sendRaw(JSON.stringify(frame));
  return client.next((f) => f.id === frame["id"]);
}

function progressOf(requestId: string): (f: Frame) => boolean {
  return (f) => f.type === "progress" && (f.data as { requestId: string }).requestId === requestId;
}

/** Documents open from `path`: none should outlive a render. */
async function copiesOf(path: string): Promise<unknown[]> {
  return (await client.call<Array<{ filePath?: string }>>("document:list")).filter((doc) => doc.filePath === path);
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** The RGB of pixel (x, y) of a raw RGBA picture `width` wide. */
function rgbAt(picture: Buffer, width: number, x: number, y: number): number[] {
  const at = (y * width + x) * 4;
  return [...picture.subarray(at, at + 3)];
}

/** How many `document:open` calls each editor has answered, from `/metrics`. */
async function opensByEditor(): Promise<Map<string, number>> {
  const text = await (await harness.http("/metrics")).text();
  const opens = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line.startsWith("bridge_request_duration_seconds_count{") || !line.includes('method="document:open"')) continue;
    const editor = /editor="([^"]*)"/.exec(line)![1]!;
    opens.set(editor, (opens.get(editor) ?? 0) + Number(line.slice(line.lastIndexOf(" ") + 1)));
  }
  return opens;
}

/** Makes each variant by hand (two at a time, one per editor) and checks the rendered file against it. */
async function expectSameAsByHand(rows: ReadonlyArray<{ variant: CardVariant; hand?: Omit<CardVariant, "id"> }>, out: (id: string) => string): Promise<void> {
  const queue = [...rows];
  const lane = async (): Promise<void> => {
    for (let row = queue.shift(); row !== undefined; row = queue.shift()) {
      const reference = join(dir, "ref", `${row.variant.id}.png`);
      await byHand(client, card, row.hand ?? row.variant, reference);
      expect((await pixels(out(row.variant.id))).equals(await pixels(reference)), row.variant.id).toBe(true);
    }
  };
  await Promise.all(Array.from({ length: EDITORS }, lane));
}

describe("a product card's table of 20 variants on two editors", () => {
  const PRODUCTS = [
    "Red shoes",
    "Green hat",
    "Blue scarf",
    "Wool socks",
    "Rain coat",
    "Sun glasses",
    "Linen shirt",
    "Denim jacket",
    "Silk tie",
    "Canvas bag",
    "Straw hat",
    "Leather belt",
    "Cotton tee",
    "Knit beanie",
    "Suede boots",
    "Velvet dress",
    "Cargo shorts",
    "Puffer vest",
    "Trail sneakers",
    "Bucket hat",
  ];
  const rows: Array<{ variant: CardVariant; hand?: Omit<CardVariant, "id"> }> = [];
  let answer: Frame;
  /** The copies each editor opened for the job. */
  const spread = new Map<string, number>();

  beforeAll(async () => {
    for (const [i, headline] of PRODUCTS.entries()) {
      const id = `sku-${i + 1}`;
      const photo = await pngOf((i * 53) % 256, (i * 97 + 40) % 256, (i * 31 + 90) % 256, 20 + i * 3, 40 - i);
      const variant: CardVariant = {
        id,
        comp: i % 2 === 0 ? "Square" : "Story",
        text: { Headline: headline, Price: (4.5 + i * 1.25).toFixed(2) },
        images: { Photo: i % 3 === 0 ? { image: photo.uri, fit: "contain" } : photo.uri },
        edits: [{ method: "document:save", params: { savePath: join(dir, "psd", `${id}.psd`) } }],
      };
      if (i % 5 === 0) variant.fills = { Tint: `#${((i * 0x1f3d5b) & 0xffffff).toString(16).padStart(6, "0")}` };
      // A name pattern beside the exact name: the hand-made copy spells the layer out.
      if (i % 4 === 1) variant.visible = { Badge: true };
      if (i % 4 === 2) {
        variant.visible = { "B?dge": false };
        rows.push({ variant, hand: { ...variant, visible: { Badge: false } } });
        continue;
      }
      rows.push({ variant });
    }
    const before = await opensByEditor();
    answer = await sendFrame({
      id: "table",
      method: "template:render",
      params: { template: { path: card }, variants: rows.map((row) => row.variant), output: { path: `${dir}/out/{id}.png` } },
      progress: true,
    });
    for (const [editor, count] of await opensByEditor()) spread.set(editor, count - (before.get(editor) ?? 0));
  }, 300_000);

  it("renders every variant, each the same picture as its edits made one method at a time on a fresh copy; the template's bytes are unchanged", async () => {
    expect(answer.ok).toBe(true);
    const outcomes = (answer.result as { variants: Outcome[] }).variants;
    expect(outcomes.map((o) => [o.id, o.ok, o.path])).toEqual(rows.map(({ variant }) => [variant.id, true, join(dir, "out", `${variant.id}.png`)]));
    expect(client.frames.filter(progressOf("table"))).toHaveLength(rows.length);
    // Both editors took copies, and one copy was opened per variant.
    expect([...spread.values()].filter((count) => count > 0)).toHaveLength(EDITORS);
    expect([...spread.values()].reduce((a, b) => a + b, 0)).toBe(rows.length);
    await expectSameAsByHand(rows, (id) => join(dir, "out", `${id}.png`));
    // Every variant differs from every other (each one's edits took), and the comps took: Square shows the badge,
    // Story hides it unless the row shows it again.
    const rendered = await Promise.all(rows.map(({ variant }) => pixels(join(dir, "out", `${variant.id}.png`))));
    expect(new Set(rendered.map((picture) => picture.toString("base64"))).size).toBe(rows.length);
    const badge = (i: number) => rgbAt(rendered[i]!, CARD.width, BADGE_AT.x, BADGE_AT.y);
    const red = [255, 0, 0];
    expect(badge(0)).toEqual(red);
    expect(badge(1)).toEqual(red);
    expect(badge(2)).not.toEqual(red);
    expect(badge(3)).not.toEqual(red);
    expect(await copiesOf(card)).toEqual([]);
    expect((await readFile(card)).equals(cardBytes)).toBe(true);
  }, 180_000);

  it("saves each variant's document as a PSD whose text layers hold the row's headline and price, read back by ag-psd", async () => {
    ensureCanvasFactory();
    for (const { variant } of rows) {
      const psd = readPsd(await readFile(join(dir, "psd", `${variant.id}.psd`)), { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true });
      const named = (name: string) => psd.children?.find((layer) => layer.name === name);
      expect(named("Headline")?.text?.text, variant.id).toBe(variant.text!["Headline"]);
      expect(named("Price")?.text?.text, variant.id).toBe(variant.text!["Price"]);
    }
  }, 180_000);
});

describe("visibility by name pattern", () => {
  it("a layer's exact name picks that layer; otherwise * and ? match whole names, case-sensitive, setting every layer they match; keys apply in order", async () => {
    const variants = [
      { id: "exact", visible: { "Dot*": false } },
      { id: "question", visible: { "Dot?": false } },
      { id: "in-order", visible: { "D*": false, Dot1: true } },
      { id: "middle", visible: { "D*2": false } },
      { id: "case", visible: { "dot*": false } },
    ];
    const { variants: outcomes } = await client.call<{ variants: Outcome[] }>("template:render", {
      template: { path: dots },
      variants,
      output: { path: `${dir}/out/dots-{id}.png` },
    });
    expect(outcomes.map((o) => [o.id, o.ok])).toEqual(variants.map((v) => [v.id, v.id !== "case"]));
    const [red, green, blue, white] = ["255,0,0", "0,255,0", "0,0,255", "255,255,255"];
    const probes = async (id: string) => {
      const picture = await pixels(join(dir, "out", `dots-${id}.png`));
      return [10, 30, 50].map((x) => rgbAt(picture, 60, x, 10).join(","));
    };
    // "Dot*" is a layer's name, so it is that layer only, though as a pattern it would match all three.
    expect(await probes("exact")).toEqual([white, green, blue]);
    // "Dot?" is nobody's name: a pattern, and `?` matches the `*` of "Dot*" as any other character.
    expect(await probes("question")).toEqual([white, white, white]);
    expect(await probes("in-order")).toEqual([white, green, white]);
    expect(await probes("middle")).toEqual([red, green, white]);
    expect(outcomes[4]!.error).toMatchObject({
      code: "LAYER_NOT_FOUND",
      details: { name: "dot*", pattern: true, matches: [], names: expect.arrayContaining(["Background", "Dot*", "Dot1", "Dot2"]) },
    });
    expect(outcomes[4]!.error!.message).toContain('"Dot1"');
  }, 180_000);

  it("reads every character but * and ? as itself, and matches whole names", () => {
    const cases: Array<[string, string, boolean]> = [
      ["Price (USD)*", "Price (USD) big", true],
      ["Price (USD)*", "Price USD big", false],
      ["a.b*", "a.bc", true],
      ["a.b*", "axbc", false],
      ["[sale]+?", "[sale]+!", true],
      ["[sale]+?", "s", false],
      ["$^|{1}\\/?", "$^|{1}\\/x", true],
      ["Badge", "Badge 2", false],
      ["*adge", "Badge 2", false],
      ["B*", "B", true],
      ["?", "😀", true],
      ["b*", "Badge", false],
    ];
    expect(cases.map(([pattern, name]) => namePattern(pattern).test(name))).toEqual(cases.map(([, , matches]) => matches));
  });

  it("render-template takes a pattern in a visible: column", async () => {
    const csv = join(dir, "dots.csv");
    await writeFile(csv, "id,visible:Dot?,visible:Dot2\ncli-dots,hidden,shown\n");
    const out: string[] = [];
    const code = await runClientCommand(["render-template", dots, "--data", csv, "-o", `${dir}/out/{id}.png`, "--url", harness.bridge.url], {
      stdout: { write: (t: string) => out.push(t) },
      stderr: { write: () => undefined },
      env: {},
    });
    expect(code, out.join("")).toBe(0);
    const picture = await pixels(join(dir, "out", "cli-dots.png"));
    expect([10, 30, 50].map((x) => rgbAt(picture, 60, x, 10))).toEqual([
      [255, 255, 255],
      [255, 255, 255],
      [0, 0, 255],
    ]);
  }, 180_000);
});

describe("request:cancel in the middle of a job", () => {
  it("answers the variants that ran, stops the in-flight ones before their next step, and never starts the rest", async () => {
    const total = 30;
    // Variants 4 and 5 stop at the gate, one on each editor, after 0–3 are done: the cancel comes while they are in
    // the middle of their steps, and the rest are waiting.
    const variants = Array.from({ length: total }, (_, i) => ({
      id: `c${i}`,
      text: { Headline: `Item ${i}` },
      edits: [
        { method: "test:gate", params: { step: `c${i}:edit`, hold: i === 4 || i === 5 } },
        { method: "test:gate", params: { step: `c${i}:after` } },
      ],
    }));
    const job = sendFrame({
      id: "long",
      method: "template:render",
      params: { template: { path: card }, variants, output: { path: `${dir}/out/cancel-{id}.png` } },
      progress: true,
    });
    await cancelGate.held;
    await client.nth(progressOf("long"), 4);
    const ack = await client.send("request:cancel", { id: "long" });
    expect(ack.result).toMatchObject({ cancelled: true, state: "running" });
    cancelGate.release();
    const answer = await job;
    expect(answer.ok).toBe(true);
    const outcomes = (answer.result as { variants: Outcome[] }).variants;
    expect(outcomes).toHaveLength(total);
    // What finished after the cancel was acknowledged: at most one variant per editor, the ones in flight.
    const progress = client.frames.filter(progressOf("long"));
    const afterAck = progress.filter((frame) => client.frames.indexOf(frame) > client.frames.indexOf(ack));
    expect(afterAck.length).toBeLessThanOrEqual(EDITORS);
    expect(progress).toHaveLength(6);
    expect(outcomes.slice(0, 4).map((o) => o.ok)).toEqual([true, true, true, true]);
    expect(outcomes.slice(4).map((o) => o.error?.code)).toEqual(Array(total - 4).fill("CANCELLED"));
    // The in-flight variants made no step after the cancel (their second edit, their export); the rest none at all.
    expect(cancelGate.steps.toSorted()).toEqual(["c0", "c1", "c2", "c3"].flatMap((id) => [`${id}:after`, `${id}:edit`]).concat(["c4:edit", "c5:edit"]).toSorted());
    const written = await Promise.all(variants.map((v) => exists(join(dir, "out", `cancel-${v.id}.png`))));
    expect(written).toEqual(variants.map((_, i) => i < 4));
    // Their copies were closed all the same.
    expect(await copiesOf(card)).toEqual([]);
    expect((await readFile(card)).equals(cardBytes)).toBe(true);
  }, 180_000);
});

describe("a bad row among good ones", () => {
  it("fails alone: an unknown layer, a pattern matching none and an unreadable image each name what went wrong, the other rows are rendered", async () => {
    const notAnImage = join(dir, "not-an-image.png");
    await writeFile(notAnImage, "this is text, not a PNG\n");
    const photo = await pngOf(200, 120, 40);
    const variants: CardVariant[] = [
      { id: "good-1", text: { Headline: "First" }, images: { Photo: photo.uri } },
      { id: "unknown-layer", text: { Headline: "Second", Subtitle: "no such layer" } },
      { id: "good-2", comp: "Story", text: { Price: "1.00" } },
      { id: "no-match", visible: { "Sale*": true } },
      { id: "unreadable-image", text: { Headline: "Fourth" }, images: { Photo: notAnImage } },
      { id: "good-3", visible: { Badge: false }, fills: { Tint: "#808080" } },
    ];
    const answer = await client.call<{ variants: Outcome[] }>("template:render", {
      template: { path: card },
      variants,
      output: { path: `${dir}/out/rows-{id}.png` },
    });
    const byId = new Map(answer.variants.map((o) => [o.id, o]));
    expect(answer.variants.map((o) => [o.id, o.ok])).toEqual(variants.map((v) => [v.id, v.id.startsWith("good")]));
    const names = expect.arrayContaining(["Background", "Tint", "Photo", "Headline", "Price", "Badge"]);
    expect(byId.get("unknown-layer")!.error).toMatchObject({ code: "LAYER_NOT_FOUND", details: { name: "Subtitle", names } });
    expect(byId.get("unknown-layer")!.error!.message).toContain('"Headline"');
    expect(byId.get("no-match")!.error).toMatchObject({ code: "LAYER_NOT_FOUND", details: { name: "Sale*", pattern: true, names } });
    // The image's own error, as layer:replaceContents answers it: what it found, and what it takes.
    expect(byId.get("unreadable-image")!.error).toMatchObject({ code: "BAD_REQUEST", details: { source: "file", detected: "unknown", accepted: expect.arrayContaining(["png"]) } });
    for (const bad of ["unknown-layer", "no-match", "unreadable-image"]) expect(await exists(join(dir, "out", `rows-${bad}.png`)), bad).toBe(false);
    await expectSameAsByHand(
      variants.filter((v) => v.id.startsWith("good")).map((variant) => ({ variant })),
      (id) => join(dir, "out", `rows-${id}.png`),
    );
    expect(await copiesOf(card)).toEqual([]);
  }, 180_000);
});
