import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readPsd } from "ag-psd";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostLayer } from "../../src/protocol/index.js";
import { runClientCommand } from "../../src/client/cli.js";
import { ensureCanvasFactory } from "../../src/hosts/embedded/psd.js";
import { startBridge, type Harness } from "../helpers/bridge.js";
import { byHand as handMade, type CardVariant, cardTemplatePsd, pixels, pngOf } from "../helpers/template-card.js";
import type { Frame, TestClient } from "../helpers/ws-client.js";

/*
 * `template:render` on two embedded editors (inline: what is checked is the job's spread and its steps, not the
 * process boundary): each output against the same edits sent one method at a time on a fresh copy.
 */

type Outcome = { id: string; ok: boolean; path?: string; image?: { data: string }; error?: { code: string; details?: Record<string, unknown> } };

function sendFrame(client: TestClient, frame: Record<string, unknown>): Promise<Frame> {
  client.sendRaw(JSON.stringify(frame));
  return client.next((f) => f.id === frame["id"]);
}

/** Documents open from the template: the bridge's own sample document aside, none should outlive a render. */
async function copiesOpen(client: TestClient): Promise<unknown[]> {
  return (await client.call<Array<{ filePath?: string }>>("document:list")).filter((doc) => doc.filePath === template);
}

let dir: string;
let template: string;
let templateBytes: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "template-render-"));
  await mkdir(join(dir, "out"));
  await mkdir(join(dir, "ref"));
  await mkdir(join(dir, "psd"));
  template = join(dir, "card.psd");
  templateBytes = await cardTemplatePsd();
  await writeFile(template, templateBytes);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function start(): Promise<Harness> {
  return startBridge({ editors: 2, embedded: { isolation: "inline" }, files: { roots: [dir] }, limits: { progressIntervalMs: 0 } });
}

type Variant = CardVariant;

/** The same variant made one method at a time on a fresh copy of the template (its extra edits aside), exported to `path`. */
function byHand(client: TestClient, variant: Omit<Variant, "id">, path: string): Promise<void> {
  return handMade(client, template, variant, path);
}

describe("template:render", () => {
  it("renders each variant over both editors as the same edits made by hand; a bad row fails alone; the template is untouched", async () => {
    const harness = await start();
    const client = await harness.connect();
    const variants: Array<{ id: string; text?: Record<string, string>; visible?: Record<string, boolean> }> = [
      { id: "a", text: { Headline: "Spring sale", Price: "4.50" }, visible: { Badge: false } },
      { id: "b", text: { Headline: "Summer" } },
      { id: "bad", text: { Nope: "x" } },
      { id: "c", text: { Price: "12.00" }, visible: { Badge: false } },
    ];
    const answer = await sendFrame(client, {
      id: "job",
      method: "template:render",
      params: { template: { path: template }, variants, output: { path: `${dir}/out/{id}.png` } },
      progress: true,
    });
    expect(answer.ok).toBe(true);
    const outcomes = (answer.result as { variants: Outcome[] }).variants;
    expect(outcomes.map((o) => [o.id, o.ok])).toEqual([
      ["a", true],
      ["b", true],
      ["bad", false],
      ["c", true],
    ]);
    expect(outcomes[2]!.error).toMatchObject({ code: "LAYER_NOT_FOUND", details: { name: "Nope", names: expect.arrayContaining(["Headline", "Price", "Badge"]) } });
    expect(client.frames.filter((f) => f.type === "progress")).toHaveLength(4);
    for (const variant of variants.filter((v) => v.id !== "bad")) {
      const reference = join(dir, "ref", `${variant.id}.png`);
      await byHand(client, variant, reference);
      const rendered = outcomes.find((o) => o.id === variant.id)!;
      expect(rendered.path).toBe(join(dir, "out", `${variant.id}.png`));
      expect((await pixels(rendered.path!)).equals(await pixels(reference))).toBe(true);
    }
    // The variants differ from each other (the edits took), and no copy was left open.
    expect((await pixels(join(dir, "out", "a.png"))).equals(await pixels(join(dir, "out", "b.png")))).toBe(false);
    expect(await copiesOpen(client)).toEqual([]);
    expect((await readFile(template)).equals(templateBytes)).toBe(true);
  });

  it("renders comps, images into the smart object, fills, text and visibility as the same edits made by hand, and saves each as a PSD", async () => {
    const harness = await start();
    const client = await harness.connect();
    const [red, green, blue] = await Promise.all([pngOf(220, 30, 30), pngOf(30, 200, 60, 50, 50), pngOf(40, 60, 230, 16, 40)]);
    const save = (id: string) => [{ method: "document:save", params: { savePath: join(dir, "psd", `${id}.psd`) } }];
    const variants: Variant[] = [
      { id: "square-red", comp: "Square", text: { Headline: "Red shoes", Price: "19.00" }, images: { Photo: red.uri }, fills: { Tint: "#3060c0" }, edits: save("square-red") },
      { id: "story-green", comp: "Story", text: { Headline: "Green hat" }, images: { Photo: green.uri }, visible: { Badge: true }, edits: save("story-green") },
      { id: "story-blue", comp: "Story", images: { Photo: { image: blue.uri, fit: "contain" } }, fills: { Tint: "#c03030" }, edits: save("story-blue") },
      { id: "plain", text: { Price: "0.99" }, visible: { Badge: false } },
      { id: "bad-image", images: { Photo: "data:image/png;base64,AAAA" } },
      { id: "bad-comp", comp: "Landscape" },
    ];
    const answer = await sendFrame(client, {
      id: "cards",
      method: "template:render",
      params: { template: { path: template }, variants, output: { path: `${dir}/out/{id}.png` } },
    });
    expect(answer.ok).toBe(true);
    const outcomes = (answer.result as { variants: Outcome[] }).variants;
    expect(outcomes.map((o) => [o.id, o.ok])).toEqual(variants.map((v) => [v.id, !v.id.startsWith("bad")]));
    expect(outcomes[5]!.error).toMatchObject({ code: "NOT_FOUND" });
    const rendered = new Map<string, Buffer>();
    for (const variant of variants.filter((v) => !v.id.startsWith("bad"))) {
      const reference = join(dir, "ref", `${variant.id}.png`);
      await byHand(client, variant, reference);
      const out = await pixels(join(dir, "out", `${variant.id}.png`));
      expect(out.equals(await pixels(reference)), variant.id).toBe(true);
      rendered.set(variant.id, out);
    }
    // The comps took: Square shows the badge (red at 104, 84), Story hides it unless the variant shows it again.
    const at = (id: string, x: number, y: number) => [...rendered.get(id)!.subarray((y * 120 + x) * 4, (y * 120 + x) * 4 + 3)];
    expect(at("square-red", 104, 84)).toEqual([255, 0, 0]);
    expect(at("story-green", 104, 84)).toEqual([255, 0, 0]);
    expect(at("story-blue", 104, 84)).not.toEqual([255, 0, 0]);
    // Every variant looks different from every other: each of its steps took.
    expect(new Set([...rendered.values()].map((b) => b.toString("base64"))).size).toBe(rendered.size);
    // Each saved copy keeps its text layers and its smart object, whose embedded file is the variant's image.
    ensureCanvasFactory();
    for (const [variant, image] of [
      [variants[0]!, red],
      [variants[1]!, green],
      [variants[2]!, blue],
    ] as const) {
      const psd = readPsd(await readFile(join(dir, "psd", `${variant.id}.psd`)), { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true });
      const named = (name: string) => psd.children!.find((layer) => layer.name === name)!;
      expect(named("Headline").text?.text, variant.id).toBe(variant.text?.["Headline"] ?? "Headline");
      expect(named("Price").text?.text, variant.id).toBe(variant.text?.["Price"] ?? "9.99");
      const placed = named("Photo").placedLayer!;
      const file = psd.linkedFiles?.find((f) => f.id === placed.id);
      expect(Buffer.from(file!.data!).equals(image.bytes), variant.id).toBe(true);
      expect(psd.imageResources?.layerComps?.list.map((comp) => comp.name)).toEqual(["Square", "Story"]);
    }
    expect(await copiesOpen(client)).toEqual([]);
    expect((await readFile(template)).equals(templateBytes)).toBe(true);
  });

  it("renders from an open document as the template, leaving it as it was", async () => {
    const harness = await start();
    const client = await harness.connect();
    const { id: documentId } = await client.call<{ id: number }>("document:open", { path: template });
    const layersBefore = await client.call<HostLayer[]>("document:layers", { documentId });
    const before = join(dir, "ref", "open-before.png");
    await client.call("document:export", { documentId, path: before });
    const listBefore = await client.call<Array<{ id: number }>>("document:list");
    const photo = await pngOf(250, 180, 0);
    const variants: Variant[] = [
      { id: "open-a", comp: "Story", text: { Headline: "From the open one" }, images: { Photo: photo.uri } },
      { id: "open-b", fills: { Tint: "#202020" }, visible: { Badge: false } },
    ];
    const answer = await client.call<{ variants: Outcome[] }>("template:render", {
      template: { documentId },
      variants,
      output: { path: `${dir}/out/{id}.png` },
    });
    expect(answer.variants.map((o) => [o.id, o.ok])).toEqual([
      ["open-a", true],
      ["open-b", true],
    ]);
    for (const variant of variants) {
      const reference = join(dir, "ref", `${variant.id}.png`);
      await byHand(client, variant, reference);
      expect((await pixels(join(dir, "out", `${variant.id}.png`))).equals(await pixels(reference)), variant.id).toBe(true);
    }
    // The open document: the same layers, the same picture, no copy left beside it, its comps not applied.
    expect(await client.call<HostLayer[]>("document:layers", { documentId })).toEqual(layersBefore);
    const after = join(dir, "ref", "open-after.png");
    await client.call("document:export", { documentId, path: after });
    expect((await pixels(after)).equals(await pixels(before))).toBe(true);
    // Its entry (modified flag and all) as it was; no copy left beside it.
    expect(await client.call<Array<{ id: number }>>("document:list")).toEqual(listBefore);
    expect((await readFile(template)).equals(templateBytes)).toBe(true);
  });

  it("refuses an unknown placeholder and two variants writing one path before anything runs; answers images inline over HTTP", async () => {
    const harness = await start();
    const client = await harness.connect();
    const unknown = await client.send("template:render", { template: { path: template }, variants: [{ id: "x" }], output: { path: `${dir}/out/{sku}.png` } });
    expect(unknown.error).toMatchObject({ code: "BAD_REQUEST", details: { placeholder: "sku", variant: "x" } });
    const clash = await client.send("template:render", {
      template: { path: template },
      variants: [{ vars: { size: "s" } }, { vars: { size: "s" } }],
      output: { path: `${dir}/out/same-{size}.png` },
    });
    expect(clash.error).toMatchObject({ code: "BAD_REQUEST", details: { variants: ["1", "2"] } });
    expect(await copiesOpen(client)).toEqual([]);
    const response = await harness.http("/template/render", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ template: { path: template }, variants: [{ id: "one", visible: { Badge: false } }, { id: "two" }] }),
    });
    const body = (await response.json()) as { variants: Outcome[] };
    expect(body.variants.map((o) => [o.id, o.ok, o.image?.data.slice(0, 22)])).toEqual([
      ["one", true, "data:image/png;base64,"],
      ["two", true, "data:image/png;base64,"],
    ]);
    expect(body.variants[0]!.image!.data).not.toBe(body.variants[1]!.image!.data);
  });

  it("render-template renders a CSV's rows, prints a line per variant and a summary, and exits 1 when a row failed", async () => {
    const harness = await start();
    const csv = join(dir, "rows.csv");
    await writeFile(csv, 'id,text:Headline,visible:Badge,size\ncli-a,"Sale, today",false,s\ncli-b,Hello,true,m\ncli-c,Bad,maybe,l\n');
    const usage: string[] = [];
    const refused = await runClientCommand(["render-template", template, "--data", csv, "-o", `${dir}/out/{id}.png`, "--url", harness.bridge.url], {
      stdout: { write: (t: string) => usage.push(t) },
      stderr: { write: (t: string) => usage.push(t) },
      env: {},
    });
    // A value that is not a boolean is the command line's mistake, found before anything is sent.
    expect(refused).toBe(2);
    expect(usage.join("")).toMatch(/row 3, column visible:Badge: "maybe"/);
    await writeFile(csv, 'id,text:Headline,visible:Badge,text:Missing\ncli-a,"Sale, today",false,\ncli-b,Hello,true,\ncli-c,Bad,true,x\n');
    const out: string[] = [];
    const err: string[] = [];
    const code = await runClientCommand(["render-template", template, "--data", csv, "-o", `${dir}/out/{id}.png`, "--url", harness.bridge.url], {
      stdout: { write: (t: string) => out.push(t) },
      stderr: { write: (t: string) => err.push(t) },
      env: {},
    });
    expect(code).toBe(1);
    // Not a terminal: one plain line per finished variant, then the summary naming the failure.
    expect(err.join("").trim().split("\n")).toHaveLength(3);
    expect(out.join("")).toMatch(/^2 done, 1 failed, [\d.]+ s\n {2}cli-c: LAYER_NOT_FOUND /);
    const client = await harness.connect();
    await byHand(client, { text: { Headline: "Sale, today" }, visible: { Badge: false } }, join(dir, "ref", "cli-a.png"));
    expect((await pixels(join(dir, "out", "cli-a.png"))).equals(await pixels(join(dir, "ref", "cli-a.png")))).toBe(true);
  });
});
