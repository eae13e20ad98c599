import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { BridgeOptions } from "../../src/bridge/options.js";
import type { PluginHealth } from "../../src/protocol/index.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";

// The worker entry runs from dist/: build (`npm run build`) before running these tests.
const folders: string[] = [];
afterEach(async () => {
  for (const dir of folders.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** The plugin's code at a version; `broken` makes its setup throw. */
const source = (version: number, broken = false): string => `
export default {
  id: "hot",
  events: ["hot:tick"],
  setup(ctx) {
    ${broken ? `throw new Error("version ${version} is broken");` : ""}
    ctx.method("hot:version", () => ${version});
    ctx.method("hot:tick", () => { ctx.events.emit("hot:tick", { version: ${version} }); return null; });
    const connected = {};
    ctx.method("hot:clients", () => connected);
    return { onConnect: ({ clientId, again }) => { connected[clientId] = again ?? "new"; } };
  },
};
`;

async function pluginFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "bridge-hot-"));
  folders.push(dir);
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "hot", type: "module", main: "index.js" }));
  await writeFile(join(dir, "index.js"), source(1));
  return dir;
}

async function start(options: BridgeOptions = {}) {
  const dir = await pluginFolder();
  const h = await startOnSharedEditor({ plugins: [dir], ...options });
  return { h, dir, reload: () => h.http("/plugins/hot/reload", { method: "POST", headers: options.token ? { authorization: `Bearer ${options.token}` } : {} }) };
}

describe.each(["worker", "process", "none"] as const)("hot reload (isolation %s)", (isolation) => {
  it("swaps the code under a connected client with no dropped frame; its event subscription carries over", async () => {
    const { h, dir, reload } = await start({ pluginIsolation: isolation });
    const client = await h.connect("/ws/hot");
    await client.call("event:subscribe", { type: "hot:tick" });
    expect(await client.call("hot:version")).toBe(1);
    await writeFile(join(dir, "index.js"), source(2));
    // Calls in flight around the swap each get an answer, from the old code or the new.
    const during = Array.from({ length: 20 }, () => client.send("hot:version"));
    const response = await reload();
    const body = await response.json();
    expect(body).toMatchObject({ id: "hot", status: "loaded" });
    expect(response.status).toBe(200);
    const answers = await Promise.all(during);
    for (const frame of answers) expect([1, 2]).toContain(frame.result);
    expect(await client.call("hot:version")).toBe(2);
    // The new code met the connected client through onConnect, told it was a reload.
    expect(Object.values(await client.call<Record<string, string>>("hot:clients"))).toEqual(["reload"]);
    await client.call("hot:tick");
    expect((await client.next((f) => f.type === "hot:tick")).data).toEqual({ version: 2 });
    expect(client.frames.filter((f) => f.type === "error")).toEqual([]);
  });

  it("a failed reload keeps the old code serving and the health says why", async () => {
    const { h, dir, reload } = await start({ pluginIsolation: isolation });
    const client = await h.connect("/ws/hot");
    await writeFile(join(dir, "index.js"), source(2, true));
    const response = await reload();
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ code: "PLUGIN_REGISTRATION_FAILED", pluginId: "hot" });
    expect(await client.call("hot:version")).toBe(1);
    const health = (await (await h.http("/plugins/hot/health")).json()) as PluginHealth;
    expect(health.status).toBe("loaded");
    expect(health.lastError?.message).toMatch(/version 2 is broken/);
  });
});

describe("reload protection and watching", () => {
  it("POST /plugins/{id}/reload needs the token like every route", async () => {
    const { h, reload } = await start({ token: "s3cret" });
    expect((await h.http("/plugins/hot/reload", { method: "POST" })).status).toBe(401);
    expect((await reload()).status).toBe(200);
    expect((await h.http("/plugins/hot/reload", { headers: { authorization: "Bearer s3cret" } })).status).toBe(405);
  });

  it("--watch-plugins reloads a plugin when its folder changes", async () => {
    const { h, dir } = await start({ watchPlugins: true });
    const client = await h.connect("/ws/hot");
    expect(await client.call("hot:version")).toBe(1);
    await writeFile(join(dir, "index.js"), source(3));
    while ((await client.call("hot:version")) !== 3) await new Promise((resolve) => setImmediate(resolve));
  });
});
