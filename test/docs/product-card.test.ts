import { execFile } from "node:child_process";
import { access, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCsv } from "../../src/client/cli-template.js";
import { startBridge } from "../helpers/bridge.js";

/*
 * The product-card recipes of examples/recipes/product-card, run as its README says against two embedded editors:
 * the template and photos made by make-template.mjs, the 20 rows of products.csv rendered by the command line and
 * by the Python recipe, each output sized by its comp, badged where its row says, and the two renders alike.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const RECIPE = join(ROOT, "examples", "recipes", "product-card");
const CLI = join(ROOT, "bin", "image-editor-bridge.js");
const PYTHON = "/usr/bin/python3";
const run = promisify(execFile);

const PYTHON_SKIP = await access(PYTHON).then(
  () => undefined,
  () => `${PYTHON} is not installed (apt-get install python3)`,
);

/** The rows of the recipe's CSV, read with the command line's own parser. */
const ROWS = parseCsv(await readFile(join(RECIPE, "products.csv"), "utf8"));
/** Canvas size per comp once trimmed: "square" leaves the canvas below its card empty. */
const SIZES: Record<string, [number, number]> = { square: [360, 360], story: [360, 640] };
/** A point inside the badge (above its word) in each comp, and the badge's red. */
const BADGE_AT: Record<string, [number, number]> = { square: [300, 304], story: [300, 454] };
const BADGE_RED = [220, 20, 40];
/** The centre of the photo placeholder, and the grey the template's placeholder shows there. */
const PHOTO_AT = [180, 178] as const;
const PLACEHOLDER_GREY = [176, 176, 176];

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "product-card-"));
  await run(process.execPath, [join(RECIPE, "make-template.mjs"), dir]);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

type Picture = { width: number; height: number; data: Buffer };

async function picture(path: string): Promise<Picture> {
  const { data, info } = await sharp(path).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

const rgbAt = (p: Picture, [x, y]: readonly [number, number]): number[] => [...p.data.subarray((y * p.width + x) * 4, (y * p.width + x) * 4 + 3)];

/** Every row's output in `folder`: its size by comp, the badge where the row shows it, the row's photo in the frame. */
async function checkCards(folder: string): Promise<Map<string, Picture>> {
  const cards = new Map<string, Picture>();
  for (const row of ROWS) {
    const id = row["id"]!;
    const comp = row["comp"]!;
    const card = await picture(join(folder, `${id}.png`));
    expect([card.width, card.height], id).toEqual(SIZES[comp]);
    const badged = row["visible:Badge"] === "true";
    expect(rgbAt(card, BADGE_AT[comp]!).join() === BADGE_RED.join(), `${id}'s badge`).toBe(badged);
    expect(rgbAt(card, PHOTO_AT), `${id}'s photo`).not.toEqual(PLACEHOLDER_GREY);
    cards.set(id, card);
  }
  // Each row its own card (its headline, price and photo), none the same as another.
  expect(new Set([...cards.values()].map((c) => c.data.toString("base64"))).size).toBe(ROWS.length);
  return cards;
}

function start() {
  return startBridge({ editors: 2, embedded: { isolation: "inline" }, files: { roots: [dir] } });
}

/** The command line's cards, once its case has run: the Python recipe's must be the same pixels. */
let byCli: Map<string, Picture> | undefined;

describe("the product-card recipe, run as documented against two embedded editors", () => {
  it("render-template --trim renders the 20 rows of products.csv, each sized by its comp and badged as its row says; the template is untouched", { timeout: 300_000 }, async () => {
    expect(ROWS).toHaveLength(20);
    expect(new Set(ROWS.map((r) => r["comp"]))).toEqual(new Set(["square", "story"]));
    const harness = await start();
    const template = await readFile(join(dir, "card.psd"));
    // From the folder, as the README runs it: photo paths in the CSV are relative to the files root.
    await mkdir(join(dir, "out"));
    const csv = join(RECIPE, "products.csv");
    const cli = await run(process.execPath, [CLI, "render-template", "card.psd", "--data", csv, "-o", "out/{id}.png", "--trim", "--url", harness.bridge.url], { cwd: dir });
    expect(cli.stdout).toMatch(/^20 done, 0 failed, [\d.]+ s\n$/);
    byCli = await checkCards(join(dir, "out"));
    expect((await readFile(join(dir, "card.psd"))).equals(template)).toBe(true);
  });

  it.skipIf(PYTHON_SKIP !== undefined)(`render_products.py renders the same cards over HTTP with Python's standard library${PYTHON_SKIP ? ` (${PYTHON_SKIP})` : ""}`, { timeout: 300_000 }, async () => {
    const harness = await start();
    const python = await run(PYTHON, [join(RECIPE, "render_products.py"), dir, join(dir, "py"), "--url", harness.bridge.url]);
    expect(python.stdout).toMatch(/20 done, 0 failed\n$/);
    const byPython = await checkCards(join(dir, "py"));
    // The same edits as the command line's: the same pixels (when that case ran in this file).
    for (const [id, card] of byCli ?? []) expect(byPython.get(id)!.data.equals(card.data), id).toBe(true);
  });
});
