import { spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createTestBridge, type TestBridge } from "../../src/testing/index.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
const EXAMPLE = join(ROOT, "examples", "plugins", "layer-stats");

const open: TestBridge[] = [];
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function kit(options: Parameters<typeof createTestBridge>[0]): Promise<TestBridge> {
  const t = await createTestBridge(options);
  open.push(t);
  return t;
}

/** A fenced block of docs/plugins.md that contains `marker`. */
async function docsBlock(language: string, marker: string): Promise<string | undefined> {
  const text = await readFile(join(ROOT, "docs", "plugins.md"), "utf8");
  return [...text.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, "g"))].map((m) => m[1]!).find((block) => block.includes(marker));
}

/** Runs a command to its end: exit code and everything it printed. */
function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // The environment of a user's shell: none of this vitest run's own variables.
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST") && key !== "NODE_ENV"));
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...env, NO_COLOR: "1", FORCE_COLOR: "0" } });
    let output = "";
    child.stdout.on("data", (chunk) => (output += String(chunk)));
    child.stderr.on("data", (chunk) => (output += String(chunk)));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, output }));
  });
}

describe("createTestBridge (image-editor-bridge/testing)", () => {
  it("starts a loopback bridge with the plugin and the sample document, and a client connected to the plugin's endpoint", async () => {
    const t = await kit({ plugins: [join(FIXTURES, "stats")], editor: "embedded" });
    expect(t.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(t.client.wsUrl).toBe(`${t.url.replace("http", "ws")}/ws/stats`);
    // The plugin's own method (it counts the sample document's layers through ctx.bridge.invoke), then a built-in.
    const layers = (await t.client.invoke("document:layers")) as unknown[];
    expect(layers.length).toBeGreaterThan(0);
    expect(await t.client.invoke("stats:count")).toEqual({ count: layers.length });
    // On this endpoint the plugin shadows document:current; a root client sees the editor's document.
    expect(await t.client.invoke("document:current")).toEqual({ shadowed: true });
    const root = await t.connect();
    expect(root.wsUrl).toBe(`${t.url.replace("http", "ws")}/ws`);
    expect(await root.invoke("document:current")).toMatchObject({ name: "Sample" });
  });

  it("takes file: URLs, config per plugin and limits, and close() stops the bridge (twice is fine)", async () => {
    const t = await kit({ plugins: [pathToFileURL(join(FIXTURES, "stats"))], config: { stats: { greeting: "hi" } }, limits: { pluginCallTimeoutMs: 4_321 } });
    expect(t.bridge.limits.pluginCallTimeoutMs).toBe(4_321);
    expect(await t.client.invoke("stats:greet", { name: "kit" })).toBe("hi kit");
    await t.close();
    await t.close();
    await expect(fetch(`${t.url}/health`)).rejects.toThrow();
  });

  it("with several plugins, client connects to the first folder's unless endpoint names another", async () => {
    const plugins = [join(FIXTURES, "cjs"), join(FIXTURES, "stats")];
    const first = await kit({ plugins });
    expect(first.client.wsUrl).toMatch(/\/ws\/cjs-fixture$/);
    expect(await first.client.invoke("cjs:hello")).toBe("hello from CommonJS");
    const named = await kit({ plugins, endpoint: "stats" });
    expect(named.client.wsUrl).toMatch(/\/ws\/stats$/);
    const other = await named.connect("cjs-fixture");
    expect(await other.invoke("cjs:hello")).toBe("hello from CommonJS");
  });

  it("a plugin that fails to load rejects with its reason, unless allowLoadFailures lets the test read it", async () => {
    await expect(createTestBridge({ plugins: [join(FIXTURES, "setup-throws")] })).rejects.toMatchObject({
      code: "PLUGIN_REGISTRATION_FAILED",
      message: expect.stringMatching(/^Plugin "setup-throws" \(.*setup-throws\) did not load: /),
    });
    const t = await kit({ plugins: [join(FIXTURES, "setup-throws")], allowLoadFailures: true });
    // With nothing loaded the client is a root client; the failure is on the record.
    expect(t.client.wsUrl).toBe(`${t.url.replace("http", "ws")}/ws`);
    expect((await t.client.pluginHealth("setup-throws")).status).toBe("failed");
  });

  it("refuses an editor it does not run, and an empty plugin list", async () => {
    await expect(createTestBridge({ plugins: [join(FIXTURES, "stats")], editor: "gimp" as "embedded" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(createTestBridge({ plugins: [] })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("the example plugin's own test", () => {
  it("the docs show examples/plugins/layer-stats/layer-stats.test.js as it is", async () => {
    const documented = await docsBlock("js", "createTestBridge({");
    expect(documented).toBe(await readFile(join(EXAMPLE, "layer-stats.test.js"), "utf8"));
  });

  it("copied with the docs' test into a folder outside the repository, with the package installed, passes with npm test", async () => {
    const dir = await mkdtemp(join(tmpdir(), "plugin-test-kit-"));
    folders.push(dir);
    const folder = join(dir, "layer-stats");
    await cp(EXAMPLE, folder, { recursive: true });
    await writeFile(join(folder, "layer-stats.test.js"), (await docsBlock("js", "createTestBridge({"))!);
    // What `npm install` of its devDependencies leaves: the package (this checkout, built) and vitest, with its bin.
    await mkdir(join(folder, "node_modules", ".bin"), { recursive: true });
    await symlink(ROOT, join(folder, "node_modules", "image-editor-bridge"), "dir");
    await symlink(join(ROOT, "node_modules", "vitest"), join(folder, "node_modules", "vitest"), "dir");
    await symlink("../vitest/vitest.mjs", join(folder, "node_modules", ".bin", "vitest"));
    const { code, output } = await run("npm", ["test"], folder);
    expect(output).toMatch(/Tests\s+4 passed \(4\)/);
    expect(code).toBe(0);
  });
});
