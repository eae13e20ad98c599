import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PluginHealthSchema, type PluginHealth } from "../../src/protocol/index.js";
import { PACKAGE } from "../../src/version.js";
import { startBridge, type Harness } from "../helpers/bridge.js";

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

interface FolderPlugin {
  /** Extra `imageEditorBridge` fields (`requires`, `bridge`, …). */
  manifest?: Record<string, unknown>;
  /** `setup` throws, so the plugin fails at registration. */
  setupThrows?: boolean;
}

/** A plugins folder with one child folder per plugin (id = folder name), each answering `{id}:ping`. */
async function pluginsDir(plugins: Record<string, FolderPlugin>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "requires-"));
  folders.push(root);
  for (const [id, spec] of Object.entries(plugins)) {
    await mkdir(join(root, id));
    const pkg = { name: id, type: "module", imageEditorBridge: { id, ...spec.manifest } };
    await writeFile(join(root, id, "package.json"), JSON.stringify(pkg));
    const body = spec.setupThrows ? 'throw new Error("setup broke");' : `ctx.method("${id}:ping", () => "pong");`;
    await writeFile(join(root, id, "index.js"), `export default { id: ${JSON.stringify(id)}, setup(ctx) { ${body} } };\n`);
  }
  return root;
}

async function start(plugins: Record<string, FolderPlugin>): Promise<Harness> {
  return startBridge({ pluginsDir: await pluginsDir(plugins), embedded: { isolation: "inline" } });
}

async function listed(h: Harness): Promise<{ plugins: Array<{ id: string }>; failed: Array<PluginHealth & { dir: string }> }> {
  return (await (await h.http("/plugins")).json()) as { plugins: Array<{ id: string }>; failed: Array<PluginHealth & { dir: string }> };
}

async function health(h: Harness, id: string): Promise<PluginHealth> {
  const response = await h.http(`/plugins/${id}/health`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as PluginHealth;
  expect(PluginHealthSchema.safeParse(body).success).toBe(true);
  return body;
}

describe("imageEditorBridge.requires", () => {
  it("loads a plugin after the plugins it requires, though its folder sorts first", async () => {
    const h = await start({ "a-app": { manifest: { requires: ["m-mid"] } }, "m-mid": { manifest: { requires: ["z-base"] } }, "z-base": {}, "b-free": {} });
    const { plugins, failed } = await listed(h);
    expect(failed).toEqual([]);
    // Load order is the listing's order: each requirement before what requires it, the rest by folder name.
    expect(plugins.map((p) => p.id)).toEqual(["z-base", "m-mid", "a-app", "b-free"]);
    const app = await h.connect("/ws/a-app");
    expect(await app.call("a-app:ping")).toBe("pong");
  });

  it("a missing requirement fails only the plugin that requires it, naming the requirement", async () => {
    const h = await start({ app: { manifest: { requires: ["base", "nowhere"] } }, base: {} });
    const app = await health(h, "app");
    expect(app.status).toBe("failed");
    expect(app.checks).toEqual({ load: "failed", registration: "skipped" });
    expect(app.lastError).toMatchObject({
      code: "PLUGIN_LOAD_FAILED",
      message: expect.stringContaining('requires the plugin "nowhere", which is not installed'),
      details: { phase: "requires", requirement: "nowhere", reason: "missing" },
    });
    expect((await health(h, "base")).status).toBe("loaded");
    const client = await h.connect("/ws/app");
    const refusal = await client.next((f) => f.type === "error");
    expect(refusal.data).toMatchObject({ code: "PLUGIN_LOAD_FAILED", details: { requirement: "nowhere", reason: "missing" } });
    expect((await client.closed).code).toBe(4004);
  });

  it("a requirement that failed fails what requires it, down the chain, and the reason names the direct requirement", async () => {
    const h = await start({ app: { manifest: { requires: ["mid"] } }, mid: { manifest: { requires: ["base"] } }, base: { setupThrows: true }, other: {} });
    expect((await health(h, "base")).lastError).toMatchObject({ code: "PLUGIN_REGISTRATION_FAILED" });
    expect((await health(h, "mid")).lastError).toMatchObject({
      code: "PLUGIN_LOAD_FAILED",
      message: expect.stringContaining('requires the plugin "base", which failed to load'),
      details: { phase: "requires", requirement: "base", reason: "failed" },
    });
    expect((await health(h, "app")).lastError).toMatchObject({ details: { phase: "requires", requirement: "mid", reason: "failed" } });
    const { plugins, failed } = await listed(h);
    expect(plugins).toEqual([{ id: "other" }]);
    expect(failed.map((f) => f.id).sort()).toEqual(["app", "base", "mid"]);
  });

  it("a cycle fails every member with reason cycle and the cycle's ids; a plugin requiring a member fails as failed", async () => {
    const h = await start({
      x: { manifest: { requires: ["y"] } },
      y: { manifest: { requires: ["z"] } },
      z: { manifest: { requires: ["x"] } },
      self: { manifest: { requires: ["self"] } },
      user: { manifest: { requires: ["y"] } },
      free: {},
    });
    for (const [id, requirement] of [["x", "y"], ["y", "z"], ["z", "x"]] as const) {
      const error = (await health(h, id)).lastError;
      expect(error).toMatchObject({ code: "PLUGIN_LOAD_FAILED", details: { phase: "requires", requirement, reason: "cycle" } });
      expect([...((error?.details?.["cycle"] as string[]) ?? [])].sort()).toEqual(["x", "y", "z"]);
    }
    expect((await health(h, "self")).lastError).toMatchObject({ details: { requirement: "self", reason: "cycle", cycle: ["self"] } });
    expect((await health(h, "user")).lastError).toMatchObject({ details: { requirement: "y", reason: "failed" } });
    expect((await listed(h)).plugins).toEqual([{ id: "free" }]);
  });

  it("a requires that is not an array of distinct plugin ids is a manifest failure", async () => {
    const h = await start({ str: { manifest: { requires: "base" } }, bad: { manifest: { requires: ["../up"] } }, twice: { manifest: { requires: ["a", "a"] } } });
    expect((await health(h, "str")).lastError).toMatchObject({ details: { phase: "manifest", reason: '"imageEditorBridge.requires" must be an array of plugin ids' } });
    expect((await health(h, "bad")).lastError).toMatchObject({ details: { phase: "manifest", reason: expect.stringContaining('entry "../up" is not a plugin id') } });
    expect((await health(h, "twice")).lastError).toMatchObject({ details: { phase: "manifest", reason: '"imageEditorBridge.requires" names a plugin twice' } });
  });
});

describe("imageEditorBridge.bridge", () => {
  it("a range this bridge's version satisfies loads; one it does not fails at load naming the range and the version", async () => {
    const [major] = PACKAGE.version.split(".");
    const supported = `>=${PACKAGE.version} <${Number(major) + 1}`;
    const future = `>=${Number(major) + 1}`;
    const h = await start({ fits: { manifest: { bridge: supported } }, ahead: { manifest: { bridge: future } } });
    expect((await health(h, "fits")).status).toBe("loaded");
    const ahead = await health(h, "ahead");
    expect(ahead.checks).toEqual({ load: "failed", registration: "skipped" });
    expect(ahead.lastError).toMatchObject({
      code: "PLUGIN_LOAD_FAILED",
      message: `Plugin failed to load (manifest): the plugin supports bridge versions ${future}; this bridge is ${PACKAGE.version}`,
      details: { phase: "manifest", field: "imageEditorBridge.bridge", range: future, version: PACKAGE.version },
    });
  });

  it("an invalid range is its own failure, before the plugin's code is imported", async () => {
    const h = await start({ nonsense: { manifest: { bridge: "version two please" } }, number: { manifest: { bridge: 2 } }, empty: { manifest: { bridge: " " } } });
    expect((await health(h, "nonsense")).lastError).toMatchObject({
      code: "PLUGIN_LOAD_FAILED",
      details: { phase: "manifest", field: "imageEditorBridge.bridge", reason: '"imageEditorBridge.bridge" "version two please" is not a valid semver range' },
    });
    for (const id of ["number", "empty"]) {
      expect((await health(h, id)).lastError).toMatchObject({
        details: { phase: "manifest", reason: '"imageEditorBridge.bridge" must be a semver range such as ">=0.1 <2"' },
      });
    }
  });
});
