import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { TestClient } from "../helpers/ws-client.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const running: Array<{ child: ChildProcess; dir: string }> = [];

afterEach(async () => {
  for (const { child, dir } of running.splice(0)) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
    await rm(dir, { recursive: true, force: true });
  }
});

/** The fenced code blocks of docs/plugins.md: the manifest (`json`) and the definition (`js` with definePlugin). */
async function documentedPlugin(): Promise<{ manifest: string; code: string }> {
  const text = await readFile(join(ROOT, "docs", "plugins.md"), "utf8");
  const manifest = [...text.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!).find((block) => block.includes('"imageEditorBridge"'))!;
  const code = [...text.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!).find((block) => block.includes("definePlugin("))!;
  return { manifest, code };
}

/** Starts `image-editor-bridge serve` as a user would (the built CLI) and resolves with its URL once it listens. */
async function serve(args: string[], dir: string): Promise<string> {
  const child = spawn(process.execPath, [join(ROOT, "bin", "image-editor-bridge.js"), "serve", "--listen", "127.0.0.1:0", "--log-level", "silent", ...args], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push({ child, dir });
  let out = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      out += String(chunk);
      const url = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (url !== null) resolve(url[0]);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
}

describe("a plugin in a folder outside the repository", () => {
  it("the docs' example loads with nothing installed next to it and answers its method", async () => {
    const dir = await mkdtemp(join(tmpdir(), "outside-plugin-"));
    const { manifest, code } = await documentedPlugin();
    // The docs' folder example names the plugin layer-stats; the definition is watermark: one folder each.
    const folder = join(dir, "watermark");
    await mkdir(folder);
    const parsed = JSON.parse(manifest) as { imageEditorBridge: { id: string } };
    parsed.imageEditorBridge.id = "watermark";
    await writeFile(join(folder, "package.json"), JSON.stringify({ ...parsed, name: "watermark" }));
    await writeFile(join(folder, "index.js"), code);
    const url = await serve(["--plugin", folder], dir);
    const health = (await (await fetch(`${url}/plugins`)).json()) as { plugins: Array<{ id: string }>; failed: unknown[] };
    expect(health.failed).toEqual([]);
    expect(health.plugins.map((p) => p.id)).toContain("watermark");
    const client = await TestClient.open(`${url.replace("http", "ws")}/ws/watermark`);
    try {
      expect(await client.call("watermark:apply", { text: "hello" })).toEqual({ ok: true });
      expect((await client.send("watermark:apply", { text: 5 })).error).toMatchObject({ code: "BAD_REQUEST" });
    } finally {
      await client.close();
    }
  });
});
