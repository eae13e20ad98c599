import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/serve.js";
import { buildParams, runClientCommand } from "../../src/client/cli.js";
import { localPaths } from "../../src/client/cli-params.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { eventually } from "../helpers/gc.js";
import { ScriptedHost } from "../helpers/scripted-host.js";
import { connect, onCleanup, waitForServerState } from "./_support.js";
import { until } from "../helpers/until.js";
import { runCommand } from "../helpers/client-command.js";


async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "ieb-cli-"));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe("client commands", () => {
  it("call prints a method's result; --json prints it on one line", async () => {
    const { bridge } = await startOnSharedEditor();
    const pretty = await runCommand(["call", "document:current", "--url", bridge.url]);
    expect(pretty).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(pretty.stdout)).toMatchObject({ name: "Sample", width: 800 });
    expect(pretty.stdout.split("\n").length).toBeGreaterThan(3);
    const json = await runCommand(["call", "document:current", "--json"], { BRIDGE_URL: bridge.url });
    expect(json.stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ name: "Sample" });
  });

  it("undo, redo and history move and show the active document's history", async () => {
    const { bridge } = await startOnSharedEditor();
    const url = ["--url", bridge.url];
    expect((await runCommand(["call", "selection:all", ...url])).code).toBe(0);
    expect((await runCommand(["call", "selection:clear", ...url])).code).toBe(0);
    const listed = await runCommand(["history", ...url]);
    expect(listed).toMatchObject({ code: 0, stderr: "" });
    expect(listed.stdout).toMatch(/^document \d+: at step 2 of 2\n {2}1 selection:all {2}client \w+\n> 2 selection:clear {2}client \w+\n$/);
    const undone = await runCommand(["undo", "--steps", "2", ...url]);
    expect(undone.stdout).toMatch(/^document \d+ at step 0 of 2 \(revision \d+\)\n$/);
    const redone = await runCommand(["redo", "--json", ...url]);
    expect(JSON.parse(redone.stdout)).toMatchObject({ current: 1, length: 2 });
    expect((await runCommand(["history", ...url])).stdout).toContain("  2 selection:clear");
    // Nothing more to redo than was undone: the bridge's BAD_REQUEST, exit status 1.
    expect((await runCommand(["redo", "--steps", "5", ...url])).code).toBe(1);
    expect((await runCommand(["history", "--steps", "2", ...url])).code).toBe(2);
  });

  it("call takes params as JSON or as --param k=v with dotted keys", async () => {
    const { bridge } = await startOnSharedEditor();
    const rect = { x: 1, y: 2, width: 30, height: 40 };
    const viaJson = await runCommand(["call", "selection:set", JSON.stringify({ rect }), "--url", bridge.url, "--json"]);
    expect(JSON.parse(viaJson.stdout)).toEqual(rect);
    const viaParams = await runCommand([
      "call",
      "selection:set",
      "--url",
      bridge.url,
      "--json",
      "--param",
      "rect.x=5",
      "--param",
      "rect.y=6",
      "--param",
      "rect.width=7",
      "--param",
      "rect.height=8",
    ]);
    expect(JSON.parse(viaParams.stdout)).toEqual({ x: 5, y: 6, width: 7, height: 8 });
    expect(buildParams('{"a":1}', ["b.c=x", "d=true"])).toEqual({ a: 1, b: { c: "x" }, d: true });
  });

  it("call --progress prints the bridge's progress reports on stderr; an interrupt cancels the call on the bridge", async () => {
    const harness = await startOnSharedEditor();
    const script = `progress(0.5, "half way"); 1`;
    const reported = await runCommand(["call", "jsx:run", JSON.stringify({ script }), "--progress", "--url", harness.bridge.url]);
    expect(reported).toMatchObject({ code: 0 });
    expect(reported.stderr).toContain("progress 50% half way\n");
    const asJson = await runCommand(["call", "jsx:run", JSON.stringify({ script }), "--progress", "--json", "--url", harness.bridge.url]);
    expect(JSON.parse(asJson.stderr.split("\n")[0]!)).toEqual({ progress: { progress: 0.5, total: 1, message: "half way" } });

    const interrupt = new AbortController();
    const running = runCommand(["call", "jsx:run", JSON.stringify({ script: "for(;;){}", timeoutMs: 60_000 }), "--url", harness.bridge.url], {}, interrupt.signal);
    const busy = async (): Promise<number> => ((await (await harness.http("/status")).json()) as { editors: Array<{ running: number }> }).editors[0]!.running;
    await until(busy, (running) => running > 0, { what: "the script running" });
    interrupt.abort();
    expect((await running).code).not.toBe(0);
    // Cancelled on the bridge, not only abandoned: the editor is free long before the script's minute is up.
    await until(busy, (running) => running === 0, { what: "the editor free again" });
    const status = (await (await harness.http("/status")).json()) as { editors: Array<{ restarts: number }> };
    expect(status.editors[0]!.restarts).toBe(0);
  });

  it("a failing call exits 1 with the error code and message on stderr", async () => {
    const { bridge } = await startOnSharedEditor();
    const missing = await runCommand(["call", "layer:getInfoById", "--param", "layerId=999999", "--url", bridge.url]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toMatch(/^image-editor-bridge: LAYER_NOT_FOUND: .+/);
    const unknown = await runCommand(["call", "no:such", "--url", bridge.url, "--json"]);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ error: { code: "UNKNOWN_METHOD" } });
  });

  it("an unreachable bridge exits 3, a wrong token 1, a bad command line 2", async () => {
    const harness = await startOnSharedEditor({ token: "t0ken" });
    const url = harness.bridge.url;
    const denied = await runCommand(["call", "getServerInfo", "--url", url, "--token", "nope"]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/UNAUTHORIZED/);
    const allowed = await runCommand(["call", "getServerInfo", "--url", url, "--json"], { BRIDGE_TOKEN: "t0ken" });
    expect(allowed.code).toBe(0);
    await harness.bridge.close();
    const down = await runCommand(["health", "--url", url]);
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(/CONNECTION_FAILED/);
    const call = await runCommand(["call", "getServerInfo", "--url", url]);
    expect(call.code).toBe(3);
    expect((await runCommand(["call"])).code).toBe(2);
    expect((await runCommand(["call", "x", "{not json"])).stderr).toMatch(/not valid JSON/);
    expect((await runCommand(["export-document"])).code).toBe(2);
    expect((await runCommand(["subscribe", "--count", "0", "x"])).stderr).toMatch(/--count expects a positive integer/);
  });

  it("subscribe --count n prints n events as JSON lines and exits 0", async () => {
    const harness = await startOnSharedEditor();
    const observer = connect(harness.bridge.url);
    const running = runCommand(["subscribe", "selection:changed", "--count", "2", "--url", harness.bridge.url]);
    // Wait until the command's client has subscribed, as seen by the bridge.
    for (;;) {
      const { clients } = await observer.server.clients();
      if (clients.some((c) => c.subscriptions.includes("selection:changed"))) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const x of [1, 2, 3]) await observer.selection.set({ rect: { x, y: 0, width: 5, height: 5 } });
    const { code, stdout } = await running;
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { type: "selection:changed", seq: 1, data: { x: 1, y: 0, width: 5, height: 5 } },
      { type: "selection:changed", seq: 2, data: { x: 2, y: 0, width: 5, height: 5 } },
    ]);
  });

  it("subscribe stops when interrupted and disposes its client", async () => {
    const harness = await startOnSharedEditor();
    const observer = connect(harness.bridge.url);
    const controller = new AbortController();
    const running = runCommand(["subscribe", "#ready", "--url", harness.bridge.url], {}, controller.signal);
    let id: string | undefined;
    for (;;) {
      const { clients } = await observer.server.clients();
      id = clients.find((c) => c.subscriptions.includes("#ready"))?.idPrefix;
      if (id !== undefined) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    controller.abort();
    const { code, stdout } = await running;
    expect(code).toBe(0);
    expect(JSON.parse(stdout.trim())).toMatchObject({ type: "#ready", data: { port: harness.bridge.port } });
    await waitForServerState(observer, id, "disposed");
  });

  it("--name names the command's client in server:clients; a name the bridge would refuse is a usage error", async () => {
    const { bridge } = await startOnSharedEditor();
    const listed = await runCommand(["call", "server:clients", "--name", "cli-probe", "--json", "--url", bridge.url]);
    expect(listed).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(listed.stdout).clients).toEqual([expect.objectContaining({ name: "cli-probe", state: "attached" })]);
    const bad = await runCommand(["call", "getServerInfo", "--name", "x".repeat(65), "--url", bridge.url]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--name: name must be 1 to 64 characters/);
  });

  it("health reads /ready: ok exits 0; plugins lists the loaded ones", async () => {
    const { bridge } = await startOnSharedEditor();
    const health = await runCommand(["health", "--url", bridge.url]);
    expect(health).toMatchObject({ code: 0, stdout: "ok · editors 1/1 ready · plugins 0 loaded, 0 failed\n" });
    expect(JSON.parse((await runCommand(["health", "--json", "--url", bridge.url])).stdout)).toMatchObject({ status: "ok", reasons: [] });
    expect((await runCommand(["plugins", "--url", bridge.url])).stdout).toBe("no plugins loaded\n");
    expect(JSON.parse((await runCommand(["plugins", "--json", "--url", bridge.url])).stdout)).toEqual({ plugins: [], failed: [] });
    const missing = await runCommand(["plugins", "nope", "--url", bridge.url]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/PLUGIN_NOT_FOUND/);
  });

  it("a failed plugin makes health degraded (exit 5) and is named by health and plugins", async () => {
    const plugin = (name: string): string => fileURLToPath(new URL(`../plugins/fixtures/${name}`, import.meta.url));
    const { bridge } = await startOnSharedEditor({ plugins: [plugin("import-throws"), plugin("stats")] });
    const health = await runCommand(["health", "--url", bridge.url]);
    expect(health.code).toBe(5);
    expect(health.stdout).toMatch(/^degraded · editors 1\/1 ready · plugins 1 loaded, 1 failed\n/);
    expect(health.stdout).toContain("  degraded: 1 plugin failed to load\n");
    expect(health.stdout).toMatch(/ {2}- plugin import-throws failed: .*boom at import/);
    const list = await runCommand(["plugins", "--url", bridge.url]);
    expect(list.code).toBe(5);
    expect(list.stdout).toMatch(/^stats\nimport-throws FAILED: .*boom at import.* \(.*fixtures\/import-throws\)\n$/);
    const json = JSON.parse((await runCommand(["plugins", "--json", "--url", bridge.url])).stdout) as { plugins: unknown[]; failed: { id: string }[] };
    expect(json.plugins).toEqual([{ id: "stats" }]);
    expect(json.failed.map((f) => f.id)).toEqual(["import-throws"]);
  });

  it("an editor that cannot be reached makes health down (exit 3), naming the editor and why", async () => {
    const host = new ScriptedHost();
    const harness = await startOnSharedEditor({ host });
    host.lose("editor crashed", 1_000_000);
    await eventually(async () => (await harness.http("/ready")).status === 503, "/ready to say down");
    const health = await runCommand(["health", "--url", harness.bridge.url]);
    expect(health.code).toBe(3);
    expect(health.stdout).toMatch(/^down · editors 0\/1 ready/);
    expect(health.stdout).toMatch(/ {2}down: no editor is ready \(scripted (backoff|connecting)\)\n/);
    expect(health.stdout).toMatch(/ {2}- editor \S+ \(scripted\) (backoff|connecting): editor (crashed|not reachable)/);
  });

  it("export-document writes the composite image in the format of the file name or --format", async () => {
    const { bridge } = await startOnSharedEditor();
    const dir = await tempDir();
    const png = join(dir, "doc.png");
    const result = await runCommand(["export-document", "-o", png, "--url", bridge.url]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^wrote .*doc\.png \(800×600 png, \d+ bytes\)/);
    expect(await sharp(await readFile(png)).metadata()).toMatchObject({ format: "png", width: 800, height: 600 });
    const jpeg = join(dir, "small.out");
    const json = await runCommand(["export-document", "-o", jpeg, "--format", "jpeg", "--max-size", "100", "--json", "--url", bridge.url]);
    expect(JSON.parse(json.stdout)).toMatchObject({ format: "jpeg", width: 100 });
    expect(await sharp(await readFile(jpeg)).metadata()).toMatchObject({ format: "jpeg", width: 100 });
  });

  it("the image-editor-bridge command line hands client commands over and sets the exit code", async () => {
    const { bridge } = await startOnSharedEditor();
    let printed = "";
    const previous = process.exitCode;
    try {
      const result = await main(["health", "--json", "--url", bridge.url], { stdout: { write: (t: string) => (printed += t) }, env: {} });
      expect(result).toBeUndefined();
      expect(process.exitCode).toBe(0);
      expect(JSON.parse(printed)).toMatchObject({ status: "ok" });
      printed = "";
      await main(["--help"], { stdout: { write: (t: string) => (printed += t) }, env: {} });
      expect(printed).toMatch(/subscribe <event\.\.\.>/);
    } finally {
      process.exitCode = previous;
    }
  });
});

describe("client command line checks", () => {
  it("call --help lists every built-in method and points to methods <name>", async () => {
    const help = await runCommand(["call", "--help"]);
    expect(help).toMatchObject({ code: 0, stderr: "" });
    for (const name of ["document:current", "layer:getInfoById", "image:exportLayer", "selection:set"]) {
      expect(help.stdout).toMatch(new RegExp(`^  ${name}$`, "m"));
    }
    expect(help.stdout).toContain('Run "image-editor-bridge methods <method>"');
  });

  it("a command refuses an option it does not use, naming the command and the option (exit 2)", async () => {
    for (const [argv, message] of [
      [["health", "--format", "png"], "health does not take --format"],
      [["plugins", "--name", "x"], "plugins does not take --name"],
      [["subscribe", "selection:changed", "-o", "x.png"], "subscribe does not take -o/--output"],
      [["call", "document:current", "--count", "1"], "call does not take --count"],
      [["export-document", "-o", "x.png", "--layer-id", "3"], "export-document does not take --layer-id"],
    ] as const) {
      const result = await runCommand([...argv]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`image-editor-bridge: ${message}\n`);
    }
  });

  it("a bad --url or BRIDGE_URL is a usage error (exit 2) naming the schemes it takes", async () => {
    const scheme = await runCommand(["health", "--url", "localhost:7700"]);
    expect(scheme.code).toBe(2);
    expect(scheme.stderr).toMatch(/^image-editor-bridge: --url: Unsupported URL scheme "localhost:" \(expected http, https, ws or wss\)/);
    const port = await runCommand(["call", "document:current", "--url", "7700"]);
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(/--url: Not a URL: "7700" \(expected e\.g\. http:\/\/127\.0\.0\.1:7700/);
    const env = await runCommand(["health"], { BRIDGE_URL: "ftp://127.0.0.1:7700" });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/^image-editor-bridge: BRIDGE_URL: Unsupported URL scheme "ftp:"/);
  });

  it("call -o writes a returned image to a file; a result without an image is a usage error", async () => {
    const { bridge } = await startOnSharedEditor();
    const dir = await tempDir();
    const file = join(dir, "layer.webp");
    const result = await runCommand(["call", "image:exportLayer", "--param", "format=webp", "-o", file, "--url", bridge.url]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(/^wrote .*layer\.webp \(\d+×\d+ webp, \d+ bytes\)\n$/);
    expect(await sharp(await readFile(file)).metadata()).toMatchObject({ format: "webp" });
    const json = await runCommand(["call", "image:exportDocument", "-o", join(dir, "doc.png"), "--json", "--url", bridge.url]);
    expect(JSON.parse(json.stdout)).toMatchObject({ path: join(dir, "doc.png"), mediaType: "image/png", format: "png", width: 800, height: 600 });
    const none = await runCommand(["call", "document:current", "-o", join(dir, "doc.json"), "--url", bridge.url]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("-o writes a returned image, but document:current returned no image (no data URI)");
  });

  it("export-layer writes one layer's image: the active one, or by --layer-id or --layer-index", async () => {
    const { bridge } = await startOnSharedEditor();
    const dir = await tempDir();
    const layers = JSON.parse((await runCommand(["call", "document:layers", "--json", "--url", bridge.url])).stdout) as Array<{ id: number; rect: { width: number } }>;
    const byId = await runCommand(["export-layer", "-o", join(dir, "by-id.png"), "--layer-id", String(layers[1]!.id), "--url", bridge.url]);
    expect(byId.code).toBe(0);
    expect(await sharp(await readFile(join(dir, "by-id.png"))).metadata()).toMatchObject({ format: "png", width: layers[1]!.rect.width });
    const byIndex = await runCommand(["export-layer", "-o", join(dir, "by-index.jpg"), "--layer-index", "0", "--json", "--url", bridge.url]);
    expect(JSON.parse(byIndex.stdout)).toMatchObject({ format: "jpeg", width: layers[0]!.rect.width });
    expect((await runCommand(["export-layer", "-o", join(dir, "active.png"), "--url", bridge.url])).code).toBe(0);
    const both = await runCommand(["export-layer", "-o", "x.png", "--layer-id", "1", "--layer-index", "0"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("export-layer takes --layer-id or --layer-index, not both");
    const missing = await runCommand(["export-layer", "-o", join(dir, "x.png"), "--layer-id", "999999", "--url", bridge.url]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/LAYER_NOT_FOUND/);
  });

  it("a file that cannot be written is a local error naming the file and the reason: exit 4, not INTERNAL", async () => {
    const { bridge } = await startOnSharedEditor();
    const dir = await tempDir();
    const target = join(dir, "no-such-folder", "doc.png");
    const failed = await runCommand(["export-document", "-o", target, "--url", bridge.url]);
    expect(failed).toMatchObject({ code: 4, stdout: "" });
    expect(failed.stderr).toBe(`image-editor-bridge: cannot write ${target}: ENOENT (the folder does not exist)\n`);
    const json = await runCommand(["call", "image:exportDocument", "-o", dir, "--json", "--url", bridge.url]);
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: "LOCAL_FILE", message: `cannot write ${dir}: EISDIR (it is a folder)` } });
  });
});

describe("relative paths in call params", () => {
  const cwd = "/home/user/work";
  it("are made absolute for a loopback bridge without files roots, as the shell means them", () => {
    const bridge = { url: "http://127.0.0.1:7700", filesRoots: null };
    expect(localPaths({ path: "out/a.png", format: "png" }, bridge, cwd)).toEqual({ path: "/home/user/work/out/a.png", format: "png" });
    expect(localPaths({ savePath: "b.psd" }, { ...bridge, url: "http://localhost:7700" }, cwd)).toEqual({ savePath: "/home/user/work/b.psd" });
    expect(localPaths({ path: "/abs/c.png" }, bridge, cwd)).toEqual({ path: "/abs/c.png" });
  });

  it("are sent as given to a confined bridge (its first root resolves them) or a remote one", () => {
    expect(localPaths({ path: "a.png" }, { url: "http://127.0.0.1:7700", filesRoots: ["/srv/images"] }, cwd)).toEqual({ path: "a.png" });
    expect(localPaths({ path: "a.png" }, { url: "http://10.0.0.5:7700", filesRoots: null }, cwd)).toEqual({ path: "a.png" });
  });

  it("over the command line: call document:export with a relative path writes where this process runs", async () => {
    const harness = await startOnSharedEditor();
    const name = `relative-${process.pid}.png`;
    try {
      const out: string[] = [];
      const code = await runClientCommand(["call", "document:export", "--param", `path=${name}`, "--url", harness.bridge.url, "--json"], {
        env: {},
        stdout: { write: (text: string) => out.push(text) },
        stderr: { write: () => {} },
      });
      expect(code).toBe(0);
      expect((JSON.parse(out.join("")) as { path: string }).path).toBe(join(process.cwd(), name));
    } finally {
      await rm(join(process.cwd(), name), { force: true });
    }
  });
});
