import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runClientCommand } from "../../../src/client/cli.js";
import { createGimpHost } from "../../../src/hosts/gimp/index.js";
import type { HostLayer } from "../../../src/protocol/index.js";
import { startSuiteBridge } from "../../helpers/bridge.js";
import type { TestClient } from "../../helpers/ws-client.js";
import { GIMP_BINARY, GIMP_SKIP, sharedGimpAttach } from "./_support.js";

/**
 * A template made and rendered by a real GIMP 2.10: the XCF is built through the bridge (text layers, a photo
 * placeholder, a badge) and saved by GIMP, then `template:render` and the `render-template` command fill it per
 * variant (text, visibility, a replaced photo) into PNG files, each checked against the same edits made one method
 * at a time and at the pixels where the badge and the photo are. GIMP has no layer comps: a variant asking for one
 * fails alone. The embedded editor does not open XCF: it answers so. One GIMP (the run's shared one) for the file.
 */

type Outcome = { id: string; ok: boolean; path?: string; error?: { code: string; message: string } };

const W = 160;
const H = 100;
/** Where the badge and the photo placeholder sit in the template. */
const BADGE = { x: 130, y: 70, width: 20, height: 20 };
const PHOTO = { x: 100, y: 10, width: 40, height: 30 };

const solidPng = (r: number, g: number, b: number, width = 12, height = 9): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 4, background: { r, g, b, alpha: 1 } } })
    .png()
    .toBuffer();
const dataUri = (png: Buffer): string => `data:image/png;base64,${png.toString("base64")}`;

/** An RGBA pixel of a PNG file. */
async function pixelAt(path: string, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(path).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * 4;
  return [...data.subarray(i, i + 4)];
}

/** Largest channel difference of two PNG files of one size. */
async function maxDifference(a: string, b: string): Promise<number> {
  const [x, y] = await Promise.all([sharp(a).ensureAlpha().raw().toBuffer(), sharp(b).ensureAlpha().raw().toBuffer()]);
  expect(x.length).toBe(y.length);
  let max = 0;
  for (let i = 0; i < x.length; i++) max = Math.max(max, Math.abs(x[i]! - y[i]!));
  return max;
}

describe.skipIf(GIMP_SKIP !== undefined)("templates on GIMP", () => {
  let dir: string;
  let template: string;
  let templateBytes: Buffer;
  let harness: Awaited<ReturnType<typeof startSuiteBridge>>;
  let client: TestClient;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "gimp-template-"));
    await mkdir(join(dir, "out"));
    await mkdir(join(dir, "ref"));
    await mkdir(join(dir, "cli"));
    harness = await startSuiteBridge({
      host: createGimpHost({ binary: GIMP_BINARY, attach: await sharedGimpAttach(), sample: "empty" }),
      files: { roots: [dir] },
    });
    client = await harness.connect();
    // The template, made by GIMP: a white card, a headline and a price (text layers), a grey photo placeholder and
    // a red badge, saved as XCF.
    const { fonts } = await client.call<{ fonts: Array<{ postScriptName: string }> }>("font:list");
    const font = fonts[0]?.postScriptName;
    expect(font, "GIMP lists a font (CI installs some)").toBeDefined();
    const doc = await client.call<{ id: number }>("document:create", { width: W, height: H, name: "card", background: "white" });
    const documentId = doc.id;
    const placed = async (name: string, png: Buffer, box: typeof BADGE): Promise<void> => {
      const layer = await client.call<HostLayer>("layer:create", { documentId, name, fillColor: "#000000" });
      await client.call("layer:replaceContents", { documentId, layerId: layer.id, image: dataUri(png), fit: "fill", box });
    };
    await placed("Photo", await solidPng(128, 128, 128), PHOTO);
    await placed("Badge", await solidPng(255, 0, 0), BADGE);
    await client.call("layer:create", { documentId, kind: "text", name: "Headline", text: "Headline", font, size: 16, color: "#000000", position: { x: 4, y: 4 } });
    await client.call("layer:create", { documentId, kind: "text", name: "Price", text: "9.99", font, size: 14, color: "#000000", position: { x: 4, y: 70 } });
    template = join(dir, "card.xcf");
    await client.call("document:save", { documentId, savePath: template });
    await client.call("document:close", { documentId });
    templateBytes = await readFile(template);
  }, 300_000);
  afterAll(async () => {
    await harness?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  /** The edits of a variant made one method at a time on a fresh copy of the template, exported to `path`. */
  async function byHand(variant: { text?: Record<string, string>; visible?: Record<string, boolean> }, path: string): Promise<void> {
    const { id: documentId } = await client.call<{ id: number }>("document:open", { path: template });
    const layers = await client.call<HostLayer[]>("document:layers", { documentId });
    const idOf = (name: string): number => layers.find((layer) => layer.name === name)!.id;
    for (const [name, visible] of Object.entries(variant.visible ?? {})) await client.call("layer:update", { documentId, layerId: idOf(name), visible });
    for (const [name, text] of Object.entries(variant.text ?? {})) await client.call("layer:updateText", { documentId, layerId: idOf(name), text });
    await client.call("document:export", { documentId, path, format: "png" });
    await client.call("document:close", { documentId });
  }

  it("renders variants of an XCF with text, visibility and a replaced photo to PNG files; a comp fails alone", async () => {
    const variants = [
      { id: "a", text: { Headline: "Spring sale" }, visible: { Badge: false }, images: { Photo: dataUri(await solidPng(0, 0, 255)) } },
      { id: "b", text: { Headline: "Hello there", Price: "1.99" }, visible: { Badge: true }, images: { Photo: dataUri(await solidPng(0, 200, 0, 30, 10)) } },
      { id: "c", text: { Headline: "Last chance" }, visible: { Badge: true } },
      { id: "d", comp: "Story" },
    ];
    const { variants: outcomes } = await client.call<{ variants: Outcome[] }>("template:render", {
      template: { path: template },
      variants,
      output: { path: join(dir, "out", "{id}.png") },
    });
    expect(outcomes.map((o) => [o.id, o.ok])).toEqual([
      ["a", true],
      ["b", true],
      ["c", true],
      ["d", false],
    ]);
    expect(outcomes[3]!.error).toMatchObject({ code: "NOT_SUPPORTED" });
    const out = (id: string): string => join(dir, "out", `${id}.png`);
    for (const id of ["a", "b", "c"]) expect(await sharp(out(id)).metadata()).toMatchObject({ width: W, height: H, format: "png" });
    // The badge: hidden in a, shown in b and c.
    const badge = [BADGE.x + 10, BADGE.y + 10] as const;
    expect(await pixelAt(out("a"), ...badge)).toEqual([255, 255, 255, 255]);
    expect(await pixelAt(out("b"), ...badge)).toEqual([255, 0, 0, 255]);
    expect(await pixelAt(out("c"), ...badge)).toEqual([255, 0, 0, 255]);
    // The photo: a's blue fills the placeholder (contain of 4:3 in 4:3); b's 3:1 green is a centred band; c keeps grey.
    const photo = [PHOTO.x + 20, PHOTO.y + 15] as const;
    expect(await pixelAt(out("a"), ...photo)).toEqual([0, 0, 255, 255]);
    expect(await pixelAt(out("b"), ...photo)).toEqual([0, 200, 0, 255]);
    expect(await pixelAt(out("b"), PHOTO.x + 20, PHOTO.y + 2)).toEqual([255, 255, 255, 255]);
    expect(await pixelAt(out("c"), ...photo)).toEqual([128, 128, 128, 255]);
    // The text: each headline is the one its edits make by hand on the template (and the variants' differ).
    await byHand({ text: { Headline: "Last chance" }, visible: { Badge: true } }, join(dir, "ref", "c.png"));
    expect(await maxDifference(out("c"), join(dir, "ref", "c.png"))).toBeLessThanOrEqual(1);
    await byHand({ text: { Headline: "Headline" }, visible: { Badge: true } }, join(dir, "ref", "unchanged.png"));
    expect(await maxDifference(out("c"), join(dir, "ref", "unchanged.png"))).toBeGreaterThan(100);
    // The template file is never written, and no copy is left open.
    expect((await readFile(template)).equals(templateBytes)).toBe(true);
    expect((await client.call<Array<{ filePath?: string }>>("document:list")).filter((d) => d.filePath === template)).toEqual([]);
  }, 300_000);

  it("render-template renders a CSV's rows against GIMP and exits 0", async () => {
    const blue = join(dir, "blue.png");
    await writeFile(blue, await solidPng(0, 0, 255));
    const csv = join(dir, "rows.csv");
    await writeFile(csv, `id,text:Headline,visible:Badge,image:Photo\nr1,"Sale, today",false,${blue}\nr2,Hello,true,\nr3,Bye,true,\n`);
    const out: string[] = [];
    const err: string[] = [];
    const code = await runClientCommand(["render-template", template, "--data", csv, "-o", `${dir}/cli/{id}.png`, "--url", harness.bridge.url], {
      stdout: { write: (t: string) => out.push(t) },
      stderr: { write: (t: string) => err.push(t) },
      env: {},
    });
    expect(code, `${out.join("")}${err.join("")}`).toBe(0);
    expect(out.join("")).toMatch(/^3 done, 0 failed/);
    for (const id of ["r1", "r2", "r3"]) expect((await stat(join(dir, "cli", `${id}.png`))).size).toBeGreaterThan(0);
    expect(await pixelAt(join(dir, "cli", "r1.png"), BADGE.x + 10, BADGE.y + 10)).toEqual([255, 255, 255, 255]);
    expect(await pixelAt(join(dir, "cli", "r1.png"), PHOTO.x + 20, PHOTO.y + 15)).toEqual([0, 0, 255, 255]);
    expect(await pixelAt(join(dir, "cli", "r2.png"), BADGE.x + 10, BADGE.y + 10)).toEqual([255, 0, 0, 255]);
  }, 300_000);

  it("the embedded editor does not open XCF: the template's variants answer a clear error", async () => {
    const embedded = await startSuiteBridge({ files: { roots: [dir] } });
    try {
      const other = await embedded.connect();
      const frame = await other.send("document:open", { path: template });
      expect(frame.ok).toBe(false);
      expect(frame.error).toMatchObject({ code: "BAD_REQUEST", details: { extension: ".xcf", editor: "embedded" } });
      expect(frame.error!.message).toMatch(/does not open GIMP's XCF files: open it on a GIMP editor/);
      const { variants: outcomes } = await other.call<{ variants: Outcome[] }>("template:render", {
        template: { path: template },
        variants: [{ id: "x", text: { Headline: "Hi" } }],
        output: { path: join(dir, "out", "{id}-embedded.png") },
      });
      expect(outcomes[0]).toMatchObject({ id: "x", ok: false, error: { code: frame.error!.code } });
      expect(outcomes[0]!.error!.message).toMatch(/XCF/i);
    } finally {
      await embedded.close();
    }
  }, 120_000);
});
