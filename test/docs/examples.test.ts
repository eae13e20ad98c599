import { execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { initializeCanvas, writePsdBuffer } from "ag-psd";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeScenes } from "../../scripts/generate-product-shots.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const RECIPES = join(ROOT, "examples", "recipes");
const run = promisify(execFile);

/** python3 on PATH, or why the Python recipe cannot run here. */
const PYTHON_SKIP = await run("python3", ["--version"]).then(
  () => undefined,
  () => "python3 is not installed (apt-get install python3)",
);

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "recipes-"));
  initializeCanvas(
    (width: number, height: number) => ({ width, height }) as never,
    (width: number, height: number) => ({ width, height, data: new Uint8ClampedArray(width * height * 4) }) as never,
  );
  await mkdir(join(dir, "psds"));
  for (const [name, width, height] of [["poster", 40, 30], ["banner", 64, 16]] as const) {
    const pixels = new Uint8ClampedArray(width * height * 4).fill(200);
    const psd = writePsdBuffer({ width, height, children: [{ name: "Background", left: 0, top: 0, imageData: { width, height, data: pixels } as never }] });
    await writeFile(join(dir, "psds", `${name}.psd`), psd);
  }
  await writeFile(join(dir, "psds", "notes.txt"), "not a picture");
  await writeScenes(join(dir, "photos"), { width: 240, height: 180 });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function pngSizes(folder: string): Promise<Record<string, [number, number]>> {
  const out: Record<string, [number, number]> = {};
  for (const name of (await readdir(folder)).sort()) {
    const { width, height, format } = await sharp(join(folder, name)).metadata();
    expect(format).toBe("png");
    out[name] = [width!, height!];
  }
  return out;
}

describe("the recipes in examples/recipes, run as documented against the embedded editor", () => {
  it("batch-export.mjs exports every PSD of a folder as a PNG", async () => {
    const harness = await startOnSharedEditor();
    const out = join(dir, "exported-node");
    const { stdout } = await run(process.execPath, [join(RECIPES, "batch-export.mjs"), join(dir, "psds"), out, "--url", harness.bridge.url]);
    expect(stdout).toContain("poster.psd →");
    expect(await pngSizes(out)).toEqual({ "banner.png": [64, 16], "poster.png": [40, 30] });
  });

  it.skipIf(PYTHON_SKIP !== undefined)(`batch_export.py does the same over HTTP with Python's standard library${PYTHON_SKIP ? ` (${PYTHON_SKIP})` : ""}`, async () => {
    const harness = await startOnSharedEditor();
    const out = join(dir, "exported-python");
    await run("python3", [join(RECIPES, "batch_export.py"), join(dir, "psds"), out, "--url", harness.bridge.url]);
    expect(await pngSizes(out)).toEqual({ "banner.png": [64, 16], "poster.png": [40, 30] });
  });

  // Every shot goes through the cutout model in the editor process: about 50 s of native work on a loaded two-core
  // machine, so the timeout (how long a broken run takes to fail) is wider than the suite's.
  it("remove-backgrounds.mjs writes a transparent cutout of each product shot", { timeout: 240_000 }, async () => {
    const harness = await startOnSharedEditor();
    const out = join(dir, "cutouts");
    const { stdout } = await run(process.execPath, [join(RECIPES, "remove-backgrounds.mjs"), join(dir, "photos"), out, "--url", harness.bridge.url]);
    const written = await readdir(out);
    expect(written.length).toBeGreaterThan(0);
    expect(stdout.split("\n").filter((line) => line.includes("→"))).toHaveLength(written.length);
    for (const name of written) {
      const { data } = await sharp(join(out, name)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      expect(data[3]).toBe(0); // a corner is background: transparent
    }
  });

  it("watch-selection.mjs reacts to each selection change", async () => {
    const harness = await startOnSharedEditor();
    const child = spawn(process.execPath, [join(RECIPES, "watch-selection.mjs"), "--count", "2", "--url", harness.bridge.url], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    const waiters: Array<{ text: string; resolve: () => void }> = [];
    child.stdout.on("data", (chunk: Buffer) => {
      out += String(chunk);
      for (const waiter of waiters.filter((w) => out.includes(w.text))) waiter.resolve();
    });
    const printed = (text: string): Promise<void> => new Promise((resolve) => (out.includes(text) ? resolve() : waiters.push({ text, resolve })));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    await printed("watching");
    const driver = await harness.connect();
    await driver.call("selection:set", { rect: { x: 10, y: 20, width: 30, height: 40 } });
    // The recipe reads the outline when it hears of the change: the next change waits until it has reacted.
    await printed("selection 30×40");
    await driver.call("selection:set", { rect: null });
    expect(await exited).toBe(0);
    expect(out).toMatch(/selection 30×40 at 10,20; outline 30×40/);
    expect(out).toMatch(/selection cleared/);
  });
});
