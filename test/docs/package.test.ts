import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBridge, type Bridge } from "../../src/bridge/bridge.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);
/** What a client-only install must leave out: the editor libraries (native sharp, OpenCV, QuickJS, the PSD codec). */
const EDITOR_LIBRARIES = ["sharp", "ag-psd", "@techstark", "quickjs-emscripten-core", "@jitl", "@img", "bidi-js", "linebreak"];

/** Runs a command in `cwd`; resolves with its exit code and output whatever the code. */
async function exec(command: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === "number" ? failed.code : 1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

/** The size of every file under `dir`, summed (what the files hold, whatever the file system's blocks). */
async function filesBytes(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const sizes = await Promise.all(entries.filter((e) => e.isFile()).map(async (e) => (await stat(join(e.parentPath, e.name))).size));
  return sizes.reduce((a, b) => a + b, 0);
}

/** How far a measured figure may be from the README's before the README is wrong: dependencies move within their ranges. */
const FIGURE_TOLERANCE = 0.1;

/** The package as published, packed once for both suites of this file: npm compresses it even for a dry run. */
interface Packed {
  /** The folder holding the tarball, and the client-only install made from it. */
  dir: string;
  /** The tarball's file name in `dir`. */
  filename: string;
  /** The files in the package, as npm itself lists them. */
  files: Set<string>;
}

let pack: Packed;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), "client-only-"));
  // dist/ is built by `npm test`'s pretest; no scripts run here.
  const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout) as [{ filename: string; files: Array<{ path: string }> }];
  pack = { dir, filename: packed.filename, files: new Set(packed.files.map((f) => f.path)) };
}, 120_000);

afterAll(async () => {
  if (pack !== undefined) await rm(pack.dir, { recursive: true, force: true });
});

/** Relative link targets of a Markdown file (no URLs, no in-page anchors), as paths from the package root. */
async function relativeLinks(doc: string): Promise<string[]> {
  const text = await readFile(join(ROOT, doc), "utf8");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!.split("#")[0]!)
    .filter((target) => target !== "" && !/^[a-z]+:/i.test(target))
    .map((target) => normalize(join(dirname(doc), target)).replace(/\/$/, ""));
}

describe("the npm package", () => {
  it("ships the licence, the docs, the examples and the service recipes, and every link of the README and docs resolves inside it", async () => {
    const { files } = pack;
    for (const needed of ["LICENSE", "README.md", "SECURITY.md", "docs/editors.md", "examples/recipes/batch-export.mjs", "deploy/Dockerfile", "dist/index.js"]) {
      expect(files.has(needed), needed).toBe(true);
    }
    const docs = ["README.md", ...[...files].filter((f) => f.startsWith("docs/") && f.endsWith(".md"))];
    for (const doc of docs) {
      for (const target of await relativeLinks(doc)) {
        const inside = files.has(target) || [...files].some((f) => f.startsWith(`${target}/`));
        expect(inside, `${doc} links to ${target}, which the package does not ship`).toBe(true);
      }
    }
  });
});

describe("a client-only install (npm install --omit=optional), as the README says", () => {
  let dir: string;
  let bridge: Bridge;

  beforeAll(async () => {
    dir = pack.dir;
    await writeFile(join(dir, "package.json"), JSON.stringify({ name: "client-only-user", version: "1.0.0", type: "module" }));
    const installed = await exec("npm", ["install", "--omit=optional", "--no-audit", "--no-fund", join(dir, pack.filename)], dir);
    expect(installed.code, installed.stderr).toBe(0);
    // Its own bridge for the whole file (the shared helper closes bridges after each test).
    bridge = createBridge({ listen: { host: "127.0.0.1", port: 0 } });
    await bridge.start();
  }, 120_000);

  afterAll(async () => {
    await bridge?.close();
  });

  it("leaves out sharp, OpenCV, QuickJS and ag-psd", async () => {
    const modules = await readdir(join(dir, "node_modules"));
    expect(modules).toContain("image-editor-bridge");
    for (const library of EDITOR_LIBRARIES) expect(modules, library).not.toContain(library);
  });

  it("takes the megabytes and packages the README says", async () => {
    const readme = await readFile(join(ROOT, "README.md"), "utf8");
    const said = /installs the SDK and the command-line\s+client in (\d+) MB and (\d+) packages/.exec(readme);
    expect(said, "the README's sentence with the figures").not.toBeNull();
    const listed = await exec("npm", ["ls", "--all", "--parseable", "--omit=optional"], dir);
    // The first line is the user's project itself.
    const packages = listed.stdout.trim().split("\n").length - 1;
    const megabytes = (await filesBytes(join(dir, "node_modules"))) / 1e6;
    expect(Math.abs(megabytes / Number(said![1]) - 1), `measured ${megabytes.toFixed(1)} MB`).toBeLessThanOrEqual(FIGURE_TOLERANCE);
    expect(Math.abs(packages / Number(said![2]) - 1), `measured ${packages} packages`).toBeLessThanOrEqual(FIGURE_TOLERANCE);
  });

  it("the command's client commands work against a running bridge", async () => {
    const health = await exec(process.execPath, ["node_modules/.bin/image-editor-bridge", "health", "--url", bridge.url], dir);
    expect(health, health.stderr).toMatchObject({ code: 0, stdout: expect.stringMatching(/^ok · editors 1\/1 ready/) });
    const call = await exec(process.execPath, ["node_modules/.bin/image-editor-bridge", "call", "document:current", "--json", "--url", bridge.url], dir);
    expect(call.code, call.stderr).toBe(0);
    expect(JSON.parse(call.stdout)).toMatchObject({ width: 800, height: 600 });
    const help = await exec(process.execPath, ["node_modules/.bin/image-editor-bridge", "--help"], dir);
    expect(help).toMatchObject({ code: 0, stdout: expect.stringContaining("This install has the client only") });
  });

  it("the SDK connects with the ws package and calls a method", async () => {
    const script = [
      'import { Connection } from "image-editor-bridge/client";',
      'import WebSocket from "ws";',
      `const client = new Connection({ url: ${JSON.stringify(bridge.wsUrl)}, WebSocket });`,
      "await client.ready();",
      'console.log(JSON.stringify(await client.invoke("document:current")));',
      "await client.close();",
    ].join("\n");
    await writeFile(join(dir, "use-client.mjs"), script);
    const used = await exec(process.execPath, ["use-client.mjs"], dir);
    expect(used.code, used.stderr).toBe(0);
    expect(JSON.parse(used.stdout)).toMatchObject({ width: 800, height: 600 });
  });

  it("serve says in one line which editor library is missing and how to get it", async () => {
    const served = await exec(process.execPath, ["node_modules/.bin/image-editor-bridge", "serve", "--listen", "0"], dir);
    expect(served.code).toBe(1);
    expect(served.stderr).toMatch(/^image-editor-bridge: cannot start: \S+ is not installed\. .*npm install --include=optional in the project that installed it\n$/);
  });
});
