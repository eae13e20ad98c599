import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize, resolve } from "node:path";
import { promisify } from "node:util";
import { chromiumPresent, launchChromium } from "../helpers/chromium.js";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBridge } from "../helpers/bridge.js";

const ROOT = resolve(import.meta.dirname, "../..");
const hasChromium = chromiumPresent("client browser test");

/**
 * Compiles the client entry alone to plain ESM — no bundler and no import map are needed, because the client has no
 * runtime imports beyond its own files (protocol types are erased) — to serve it from a loopback static server.
 */
async function buildClient(outDir: string): Promise<void> {
  const config = join(outDir, "tsconfig.json");
  await writeFile(
    config,
    JSON.stringify({
      extends: join(ROOT, "tsconfig.json"),
      compilerOptions: {
        rootDir: join(ROOT, "src"),
        outDir: join(outDir, "js"),
        noEmit: false,
        declaration: false,
        sourceMap: false,
        // Browser globals only, no Node types: compiling proves the client needs nothing from Node.
        lib: ["ES2023", "DOM"],
        types: [],
      },
      include: [],
      files: [join(ROOT, "src/client/index.ts")],
    }),
  );
  await promisify(execFile)(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", config], { cwd: ROOT });
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>client</title>
<script type="module">
  import { Connection, BridgeError } from "/js/client/index.js";
  window.runClient = async (url, token) => {
    const client = new Connection({ url, token });
    const hello = await client.ready();
    const doc = await client.document.current();
    let received;
    const event = new Promise((resolve) => (received = resolve));
    await client.subscribe("selection:changed", (data, meta) => received({ data, seq: meta.seq }));
    await client.selection.set({ rect: { x: 4, y: 5, width: 6, height: 7 } });
    const changed = await event;
    const error = await client.layer.getInfoById({ layerId: 424242 }).catch((e) => e);
    const image = await client.image.exportDocument({ format: "png", maxSize: 16 });
    const png = [...image.bytes.subarray(1, 4)].map((c) => String.fromCharCode(c)).join("");
    const layer = await client.layer.importImage({ image: image.blob(), name: "from a blob" });
    await client.close();
    return {
      resumed: hello.resumed,
      features: hello.features,
      name: doc.name,
      changed,
      error: { code: error.code, isBridgeError: error instanceof BridgeError },
      image: { png, mime: image.mime, blob: image.blob().type, sameData: image.data.startsWith("data:image/png;base64,iVBOR"), layer: layer.name },
    };
  };
</script>`;

describe.skipIf(!hasChromium)("client in a browser", () => {
  let dir: string;
  let server: Server;
  let origin: string;
  let browser: Browser;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "ieb-browser-"));
    await buildClient(dir);
    server = createServer(async (req, res) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      if (path === "/") {
        res.writeHead(200, { "content-type": "text/html" }).end(PAGE);
        return;
      }
      const file = normalize(join(dir, path));
      if (!file.startsWith(join(dir, "js")) || extname(file) !== ".js") {
        res.writeHead(404).end();
        return;
      }
      try {
        res.writeHead(200, { "content-type": "text/javascript" }).end(await readFile(file));
      } catch {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("a page connects with a token, calls methods, receives an event, gets typed errors and binary images", { timeout: 60_000 }, async () => {
    const harness = await startBridge({ token: "page-token", allowOrigins: [origin] });
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on("pageerror", (error) => failures.push(error.message));
    await page.goto(`${origin}/`);
    // The page's global scope, typed for the functions the page defines (no DOM types in this project).
    type PageGlobal = { runClient?(url: string, token: string): Promise<unknown> };
    await page.waitForFunction(() => typeof (globalThis as PageGlobal).runClient === "function");
    const result = await page.evaluate(
      ([url, token]) => (globalThis as PageGlobal).runClient!(url!, token!),
      [harness.bridge.url, "page-token"],
    );
    expect(result).toEqual({
      resumed: false,
      features: ["binary", "cancel", "progress", "batch", "edit", "history"],
      name: "Sample",
      changed: { data: { x: 4, y: 5, width: 6, height: 7 }, seq: 1 },
      error: { code: "LAYER_NOT_FOUND", isBridgeError: true },
      // The image came as a binary message, and went back as one from a Blob.
      image: { png: "PNG", mime: "image/png", blob: "image/png", sameData: true, layer: "from a blob" },
    });
    expect(failures).toEqual([]);
    await page.close();
  });
});
