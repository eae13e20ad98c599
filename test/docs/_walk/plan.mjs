// What the docs walk does with each shell command of each page (the table test/docs/walk.mjs follows).
//
// A step names its command by `cmd`: the doc's line without its trailing comment, whitespace collapsed. The walk
// runs the doc's own text, comment included, unless the step says otherwise:
//   serve       a long-running command: started, waited on until GET /ready answers `ready` (200), then the
//               steps after it talk to it; stopped with SIGTERM at the next `serve` or the end of the page, and
//               it must exit and leave no process behind
//   background  started, subscribed (seen in GET /status), driven, and ended by its own `--count` or Ctrl-C
//   covered     the part of the line the walk does not run, and why (`run` is the part it does run)
//   same        the identical command runs in the walk of that page
//   form        the page marks the block form-only: this checks the command's form instead of running it
//   setup       not a doc command: what the page assumes is running (its reason in `why`)
//   snippet     not a shell command: a code block of the page run as a user's program (see runSnippet in walk.mjs)
//   drive       not a shell command: a function given the page's text, run against the walk's machine (the MCP
//               client configurations of docs/mcp.md, started as an MCP client starts them)
//   needs       a reason to skip the step on this machine (GIMP or curl missing), or undefined
//   skipWhen    given the command's result, a reason it could not run here (npm's cache lacks what it needs)
//   code/check  the exit status expected (0) and what the output or the bridge must show afterwards
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cp, lstat, mkdir, readdir, readFile, realpath, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { http, printed, until } from "./machine.mjs";

/**
 * How long a served command's start-up line may follow its readiness. Only a broken start waits it out: a GIMP
 * page beside a whole test suite on two cores was seen past 30 s.
 */
const BANNER_WAIT_MS = 120_000;
/** How long the rest of a pool may follow its first ready editor: three GIMPs beside a suite start in minutes. */
const EDITORS_READY_MS = 240_000;

const which = (binary) =>
  promisify(execFile)("bash", ["-c", `command -v ${binary}`]).then(
    () => undefined,
    () => `${binary} is not installed here`,
  );
const needsGimp = () => which("gimp-console-2.10");
const needsCurl = () => which("curl");

/**
 * Starts `command args` as an MCP client starts a stdio server (in the client's folder, with the configuration's
 * environment), lists its tools and reads the current document through one, then closes the session.
 */
async function mcpSession(ctx, command, args, env) {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const transport = new StdioClientTransport({ command, args, cwd: ctx.cwd, env: { ...ctx.machine.env, ...env }, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => (stderr += String(chunk)));
  const client = new Client({ name: "docs-walk", version: "1.0.0" });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "document_current"), `${args.join(" ")}: tools ${tools.map((t) => t.name).join(", ")} ${stderr}`);
    const result = await client.callTool({ name: "document_current", arguments: {} });
    assert.match(JSON.stringify(result.structuredContent ?? result.content), /Sample/, `${args.join(" ")}: ${stderr}`);
  } finally {
    await client.close();
  }
}

/** The bridge's operator view. */
async function status() {
  const response = await http("/status");
  assert.equal(response.status, 200);
  return response.json();
}

const jsonLines = (text) => text.split("\n").filter(Boolean).map((line) => JSON.parse(line));

/** The kind of image a file holds, from its first bytes, and a PNG's size. */
async function image(ctx, name) {
  const bytes = await readFile(join(ctx.machine.repo, name));
  if (bytes.subarray(1, 4).toString() === "PNG") return { type: "png", width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  if (bytes.subarray(8, 12).toString() === "WEBP") return { type: "webp" };
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return { type: "jpeg" };
  return { type: `unknown (${bytes.subarray(0, 12).toString("hex")})` };
}

const png = (name, size) => async (_r, ctx) => {
  const found = await image(ctx, name);
  assert.equal(found.type, "png", `${name} is a PNG`);
  if (size !== undefined) assert.deepEqual([found.width, found.height], size);
};

/** `n` different selections, set over HTTP as another client would. */
async function changeSelection(n) {
  for (let i = 1; i <= n; i++) {
    const response = await http("/selection/set", { method: "POST", body: JSON.stringify({ rect: { x: 10 * i, y: 10, width: 40 + i, height: 30 } }) });
    assert.equal(response.status, 200, await response.text());
  }
}

/** The loaded plugins' ids and the failed ones' folders, as GET /status lists them. */
async function plugins() {
  const { loaded, failed } = (await status()).plugins;
  return { loaded: loaded.map((p) => p.id), failed };
}

/** Editors of the bridge as GET /status lists them: `gimp-1`, `photoshop-2`… */
const editors = async () => (await status()).editors.map((e) => e.id);

/** The README's plugin example, as a folder next to the user's project (name and type from its comment). */
async function readmePlugin(root, folder) {
  const text = await readFile(join(root, "README.md"), "utf8");
  const code = [...text.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((c) => c.startsWith("// my-plugin/index.js"));
  assert.ok(code, "README.md has the my-plugin/index.js example");
  const manifest = /package\.json: (\{.*\})/.exec(code)?.[1];
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, "package.json"), manifest);
  await writeFile(join(folder, "index.js"), code);
}

/** docs/plugins.md's definition (the watermark plugin), as a second folder. */
async function definitionPlugin(root, folder) {
  const text = await readFile(join(root, "docs", "plugins.md"), "utf8");
  const code = [...text.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((c) => c.includes("definePlugin("));
  const id = /id: "([^"]+)"/.exec(code)?.[1];
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, "package.json"), JSON.stringify({ name: id, type: "module", main: "index.js" }));
  await writeFile(join(folder, "index.js"), code);
  return id;
}

/**
 * A cluster bridge's command as docs/cluster.md's form checks run it. With no NATS there, a bridge waits
 * `clusterConnectTimeoutMs` (5 s) before it serves, degraded and still joining: `BRIDGE_LIMITS`, as a reader may set it,
 * shortens that wait rather than have the walk sit it out for each of the page's four bridges.
 */
const withoutNatsWait = (text) => `BRIDGE_LIMITS=clusterConnectTimeoutMs=100ms ${text}`;

export const PLAN = {
  "README.md": [
    {
      cmd: "npm ci && npm start",
      covered: "npm ci: CI's own npm ci (the walk runs after it; the copy links its node_modules)",
      run: "npm start",
      serve: { ready: 200 },
      check: async (ctx) => {
        // The line comes once the editor names its document, which may be just after /ready answers: waited for.
        await printed(ctx.server, /editor: embedded · document: Sample \(800×600\)/, BANNER_WAIT_MS);
        // The copy's dist/ is the one its sources were built into, so this start builds nothing (a build would also
        // repeat at every page's npm start, seconds of CPU each).
        const built = /^image-editor-bridge: building .*$/m.exec(ctx.server.out)?.[0];
        assert.equal(built, undefined, "the working tree's build is stale (node scripts/build.mjs), or one of the build's inputs is not in the walk's copy");
      },
    },
    { cmd: "npm ci && npm test", covered: "CI runs npm ci && npm test itself, and this walk is one of those tests" },
    {
      snippet: {
        name: "Client SDK",
        lang: "js",
        pick: (code) => code.includes("new Connection({ url"),
        file: "sdk.mjs",
        until: /\{ x: 10, y: 10, width: 100, height: 80 \}/,
        check: (out) => assert.match(out, /name: 'Sample'/),
      },
    },
    { cmd: "image-editor-bridge", check: (r) => assert.match(r.stdout, /^Usage: image-editor-bridge/) },
    { cmd: "image-editor-bridge methods", check: (r) => assert.match(r.stdout, /^layer:getInfoById\s+GET \/layer\/by-id\/\{layerId\}$/m) },
    { cmd: "image-editor-bridge methods layer:getInfoById", check: (r) => assert.match(r.stdout, /params: \{.*layerId: integer/) },
    { cmd: "image-editor-bridge events", check: (r) => assert.match(r.stdout, /^\s+selection:changed$/m) },
    { cmd: "image-editor-bridge call document:current", check: (r) => assert.equal(JSON.parse(r.stdout).name, "Sample") },
    { cmd: "image-editor-bridge call layer:getInfoById --param layerId=3 --json", check: (r) => assert.equal(JSON.parse(r.stdout).id, 3) },
    {
      cmd: "image-editor-bridge call image:exportLayer --param format=webp -o layer.webp",
      check: async (_r, ctx) => assert.equal((await image(ctx, "layer.webp")).type, "webp"),
    },
    {
      cmd: "image-editor-bridge subscribe selection:changed --count 5",
      background: { types: ["selection:changed"], drive: () => changeSelection(5) },
      check: (r) => assert.deepEqual(jsonLines(r.stdout).map((e) => e.type), Array(5).fill("selection:changed")),
    },
    { cmd: "image-editor-bridge health", check: (r) => assert.match(r.stdout, /^ok\b/) },
    { cmd: "image-editor-bridge plugins", check: (r) => assert.match(r.stdout, /no plugins loaded/) },
    { cmd: "image-editor-bridge export-document -o document.png", check: png("document.png", [800, 600]) },
    { cmd: "image-editor-bridge export-layer -o layer.png --layer-index 0", check: png("layer.png") },
    {
      snippet: {
        name: "Raw WebSocket frames (with the ws import the page gives for Node 20)",
        lang: "js",
        pick: (code) => code.includes('new WebSocket("ws://127.0.0.1:7700/ws")'),
        file: "raw-ws.mjs",
        prefix: 'import WebSocket from "ws";\n',
        until: /(?=[\s\S]*type: 'selection:changed')(?=[\s\S]*id: '2',\s+ok: true)/,
        check: (out) => assert.match(out, /type: 'connected'/),
      },
    },
    { cmd: "curl http://127.0.0.1:7700/document/current", needs: needsCurl, check: (r) => assert.equal(JSON.parse(r.stdout).name, "Sample") },
    { cmd: "curl http://127.0.0.1:7700/selection/area", needs: needsCurl, check: (r) => assert.equal(typeof JSON.parse(r.stdout), "object") },
    {
      cmd: `curl -X POST http://127.0.0.1:7700/image/export-document -d '{"format":"jpeg","maxSize":512}'`,
      needs: needsCurl,
      check: (r) => {
        const result = JSON.parse(r.stdout);
        assert.equal(Math.max(result.width, result.height), 512, r.stdout.slice(0, 300));
        assert.match(JSON.stringify(result), /image\/jpeg/);
      },
    },
    { cmd: "curl -X POST http://127.0.0.1:7700/image/export-document -H 'Accept: image/png' -o document.png", needs: needsCurl, check: png("document.png", [800, 600]) },
    { cmd: "curl http://127.0.0.1:7700/layer/current-preview -H 'Accept: image/png' -o preview.png", needs: needsCurl, check: png("preview.png") },
    {
      cmd: "curl http://127.0.0.1:7700/layer/by-id/abc",
      needs: needsCurl,
      check: (r) => {
        const error = JSON.parse(r.stdout);
        assert.equal(error.code, "BAD_REQUEST");
        assert.match(error.message, /^Invalid params for layer:getInfoById: layerId: /);
      },
    },
    {
      cmd: "curl -i -X POST http://127.0.0.1:7700/document/current",
      needs: needsCurl,
      check: (r) => {
        assert.match(r.stdout, /^HTTP\/1\.1 405/);
        assert.match(r.stdout, /^allow: GET, HEAD\r?$/im);
        assert.match(r.stdout, /"code":"METHOD_NOT_ALLOWED"/);
      },
    },
    {
      cmd: "npm start -- --plugins-dir examples/plugins",
      serve: { ready: 200 },
      check: async () => assert.deepEqual(await plugins(), { loaded: ["layer-stats"], failed: [] }),
    },
    {
      cmd: "curl http://127.0.0.1:7700/plugins/layer-stats/summary",
      needs: needsCurl,
      check: (r) => assert.equal(JSON.parse(r.stdout).document, "Sample"),
    },
    { cmd: "curl http://127.0.0.1:7700/plugins/layer-stats/health", needs: needsCurl, check: (r) => assert.equal(JSON.parse(r.stdout).status, "loaded") },
    {
      cmd: "npm install ../image-editor-bridge",
      why: "in the reader's project folder beside the clone (a package.json of its own), offline",
      before: async (ctx) => {
        ctx.cwd = join(ctx.machine.base, "my-app");
        await mkdir(ctx.cwd, { recursive: true });
        await writeFile(join(ctx.cwd, "package.json"), `${JSON.stringify({ name: "my-app", version: "1.0.0", private: true }, null, 2)}\n`);
      },
      check: async (_r, ctx) => {
        const { dependencies } = JSON.parse(await readFile(join(ctx.cwd, "package.json"), "utf8"));
        assert.deepEqual(dependencies, { "image-editor-bridge": "file:../image-editor-bridge" });
        assert.equal(await realpath(join(ctx.cwd, "node_modules", "image-editor-bridge")), await realpath(ctx.machine.repo));
      },
    },
    { cmd: "npx image-editor-bridge health", check: (r) => assert.match(r.stdout, /^ok\b/) },
    // In the project: the package resolves as the reader's own programs import it.
    { snippet: { name: "Embedding", lang: "ts", pick: (code) => code.includes("createBridge("), file: "embed.mjs" } },
    {
      cmd: "npm pack ../image-editor-bridge",
      check: async (_r, ctx) => {
        const { version } = JSON.parse(await readFile(join(ctx.machine.repo, "package.json"), "utf8"));
        assert.ok((await stat(join(ctx.cwd, `image-editor-bridge-${version}.tgz`))).size > 0);
      },
    },
    {
      cmd: "npm install --omit=optional ./image-editor-bridge-0.1.0.tgz",
      // The packed package's dependencies are ranges: npm resolves them from the registry's index. The walk's runner
      // (test/docs/walk.test.ts) fills npm's cache with it, and with the tarballs it resolves to, before this page;
      // where no registry can be reached it cannot, and this step is skipped with npm's reason.
      needsNpmCache: true,
      skipWhen: (r) => (r.code !== 0 && /\bENOTCACHED\b/.test(r.stderr) ? `npm's cache cannot resolve the package's dependencies offline: ${/request to \S+/.exec(r.stderr)?.[0] ?? "ENOTCACHED"}` : undefined),
      check: async (_r, ctx) => {
        const installed = join(ctx.cwd, "node_modules", "image-editor-bridge");
        assert.ok(!(await lstat(installed)).isSymbolicLink(), "a copy of its own, not the linked clone");
        const modules = await readdir(join(ctx.cwd, "node_modules"));
        for (const library of ["sharp", "ag-psd", "@techstark"]) assert.ok(!modules.includes(library), `${library} left out`);
        const health = await ctx.run("npx image-editor-bridge health");
        assert.match(health.stdout, /^ok\b/, health.stderr);
      },
    },
  ],

  "docs/client.md": [
    {
      setup: "image-editor-bridge serve --plugins-dir examples/plugins",
      why:
        "the commands talk to a running bridge: the README's plugins command (its npm start runs in the README's walk), so `plugins layer-stats` has a plugin",
      serve: { ready: 200 },
    },
    { cmd: "image-editor-bridge call document:current", check: (r) => assert.equal(JSON.parse(r.stdout).name, "Sample") },
    {
      cmd: `image-editor-bridge call selection:set '{"rect":{"x":10,"y":10,"width":100,"height":80}}'`,
      check: (r) => assert.deepEqual(JSON.parse(r.stdout), { x: 10, y: 10, width: 100, height: 80 }),
    },
    { cmd: "image-editor-bridge call layer:getInfoById --param layerId=3 --json", check: (r) => assert.equal(JSON.parse(r.stdout).id, 3) },
    {
      cmd: "image-editor-bridge call selection:set --param rect.x=1 --param rect.y=1 --param rect.width=5 --param rect.height=5",
      check: (r) => assert.deepEqual(JSON.parse(r.stdout), { x: 1, y: 1, width: 5, height: 5 }),
    },
    {
      cmd: "image-editor-bridge subscribe selection:changed layer:selectionChange",
      background: { types: ["selection:changed", "layer:selectionChange"], drive: () => changeSelection(1), interrupt: "SIGINT" },
      check: (r) => assert.equal(jsonLines(r.stdout)[0].type, "selection:changed"),
    },
    {
      cmd: "image-editor-bridge subscribe selection:changed --count 1",
      background: { types: ["selection:changed"], drive: () => changeSelection(1) },
      check: (r) => assert.equal(jsonLines(r.stdout).length, 1),
    },
    { cmd: "image-editor-bridge health", check: (r) => assert.match(r.stdout, /^ok\b/) },
    { cmd: "image-editor-bridge plugins", check: (r) => assert.match(r.stdout, /^layer-stats$/m) },
    { cmd: "image-editor-bridge plugins layer-stats", check: (r) => assert.equal(JSON.parse(r.stdout).status, "loaded") },
    { cmd: "image-editor-bridge export-document -o document.png", check: png("document.png", [800, 600]) },
    {
      cmd: "image-editor-bridge export-document -o small.webp --quality 90 --max-size 1024 --scale 0.5",
      check: async (r, ctx) => {
        assert.match(r.stdout, /\(400×300 webp/);
        assert.equal((await image(ctx, "small.webp")).type, "webp");
      },
    },
  ],

  "docs/mcp.md": [
    {
      setup: "the page's stdio configurations (--embedded, then --url with a token), started as an MCP client starts them",
      why: "the clone is the walk's copy; the client runs in a folder of its own, outside it",
      before: async (ctx) => {
        ctx.cwd = join(ctx.machine.base, "mcp-client");
        await mkdir(ctx.cwd, { recursive: true });
      },
      drive: async (ctx, text) => {
        const configs = [...text.matchAll(/```json\n([\s\S]*?)```/g)]
          .map((m) => Object.values(JSON.parse(m[1]).mcpServers ?? {})[0])
          .filter((server) => server?.command !== undefined);
        assert.deepEqual(configs.map((c) => c.args.slice(1, 3)), [["mcp", "--embedded"], ["mcp", "--url"]]);
        // The --url configuration drives a bridge already running on the docs' address, with a token.
        await ctx.serve("image-editor-bridge serve --token walk-token --public-health", 200);
        for (const config of configs) {
          const args = config.args.map((arg) => arg.replace("/path/to/image-editor-bridge", ctx.machine.repo));
          const env = Object.fromEntries(Object.entries(config.env ?? {}).map(([key, value]) => [key, value.replace("<the bridge's token>", "walk-token")]));
          await mcpSession(ctx, config.command, args, env);
        }
      },
    },
  ],

  "docs/files.md": [
    {
      cmd: "npm start -- --files-root ~/Pictures/work --files-root /srv/shared-art",
      needs: async (ctx) => (ctx.paths.srv ? undefined : "/srv could not be given a shared-art folder in the walk's own mount namespace"),
      before: (ctx) => mkdir(join(ctx.machine.home, "Pictures", "work"), { recursive: true }),
      serve: { ready: 200 },
      check: async (ctx) => {
        assert.deepEqual((await status()).files.roots, [join(ctx.machine.home, "Pictures", "work"), "/srv/shared-art"]);
        const outside = await http("/document/open", { method: "POST", body: JSON.stringify({ path: "/etc/hostname" }) });
        assert.equal(outside.status, 403);
      },
    },
  ],

  "docs/gimp.md": [
    {
      cmd: "npm start -- --editor gimp",
      needs: needsGimp,
      serve: { ready: 200 },
      check: async (ctx) => {
        await printed(ctx.server, /editor: gimp · document: Sample/, BANNER_WAIT_MS);
        assert.deepEqual(await editors(), ["gimp-1"]);
      },
    },
    {
      cmd: "npm start -- --editor gimp --gimp-binary /opt/gimp/bin/gimp-console-2.10",
      needs: async (ctx) => (await needsGimp()) ?? (ctx.paths.opt ? undefined : "/opt could not be given a GIMP in the walk's own mount namespace"),
      serve: { ready: 200 },
      check: async () => assert.deepEqual(await editors(), ["gimp-1"]),
    },
    {
      cmd: "npm start -- --editor gimp --gimp-attach 127.0.0.1:10008",
      needs: needsGimp,
      why: "the Script-Fu server on 10008 is a GIMP the walk starts, as someone else would",
      before: (ctx) => ctx.scriptFuServers([10008]),
      serve: { ready: 200 },
      check: async () => assert.deepEqual(await editors(), ["gimp-1"]),
    },
    {
      cmd: "npm start -- --editor gimp --editors 3",
      needs: needsGimp,
      serve: { ready: 200 },
      check: async () => {
        // /ready answers once one GIMP takes calls; the others may still be starting on a loaded machine.
        const list = await until("three GIMPs ready", EDITORS_READY_MS, async () => {
          const { editors: now } = await status();
          return now.length === 3 && now.every((e) => e.state === "ready") ? now : undefined;
        }).catch(async () => (await status()).editors);
        assert.deepEqual(
          list.map((e) => [e.id, e.state]),
          [
            ["gimp-1", "ready"],
            ["gimp-2", "ready"],
            ["gimp-3", "ready"],
          ],
        );
      },
    },
    {
      cmd: "npm start -- --editor gimp --gimp-attach 127.0.0.1:10008 --gimp-attach 127.0.0.1:10009",
      needs: needsGimp,
      why: "the Script-Fu servers on 10008 (still running) and 10009 are GIMPs the walk starts, as someone else would",
      before: (ctx) => ctx.scriptFuServers([10008, 10009]),
      serve: { ready: 200 },
      check: async () => assert.deepEqual(await editors(), ["gimp-1", "gimp-2"]),
    },
    {
      cmd: "BRIDGE_GIMP_ATTACH=127.0.0.1:10008,127.0.0.1:10009 npm start -- --editor gimp",
      needs: needsGimp,
      serve: { ready: 200 },
      check: async () => assert.deepEqual(await editors(), ["gimp-1", "gimp-2"]),
    },
  ],

  "docs/integrations.md": [
    {
      cmd: `curl -s -X POST http://127.0.0.1:7700/webhooks -H 'content-type: application/json' -d '{"url":"https://ci.example.com/hooks/editor","types":["selection:changed","documentChanged"]}'`,
      // Adding needs no receiver (names are resolved at delivery): the command runs against a bridge started here.
      form: async (ctx, text) => {
        await ctx.serve("image-editor-bridge serve", 200);
        const r = await ctx.run(text);
        assert.equal(r.code, 0, r.stderr);
        const added = JSON.parse(r.stdout);
        assert.deepEqual([added.url, added.types, typeof added.secret], ["https://ci.example.com/hooks/editor", ["selection:changed", "documentChanged"], "string"]);
        assert.deepEqual((await status()).webhooks.hooks.map((h) => h.id), [added.id]);
      },
    },
    {
      cmd: "BRIDGE_WEBHOOK_SECRET=$(cat hook-secret) image-editor-bridge serve --webhook 'https://ci.example.com/hooks/editor#selection:changed,documentChanged' --webhook https://chat.example.com/bridge",
      before: async (ctx) => {
        ctx.cwd = join(ctx.machine.base, "hooks");
        await mkdir(ctx.cwd, { recursive: true });
        await writeFile(join(ctx.cwd, "hook-secret"), "a-secret-of-sixteen-or-more");
      },
      form: async (ctx, text) => {
        await ctx.serve(text, 200);
        const [first, second] = (await status()).webhooks.hooks;
        assert.deepEqual(first.types, ["selection:changed", "documentChanged"]);
        assert.ok(second.types.includes("selection:changed") && !second.types.includes("layer:previewChange"), second.types.join(", "));
      },
    },
  ],

  "docs/photoshop.md": [
    {
      cmd: "BRIDGE_PHOTOSHOP_PASSWORD='…' image-editor-bridge serve --editor photoshop --photoshop-host 127.0.0.1 --photoshop-port 49494",
      form: async (ctx, text) => {
        await ctx.serve(text, 503);
        assert.deepEqual(await editors(), ["photoshop-1"]);
      },
    },
    {
      cmd: "BRIDGE_PHOTOSHOP_PASSWORD='…' image-editor-bridge serve --editor photoshop --photoshop-host 10.0.0.21 --photoshop-host 10.0.0.22:50000 --photoshop-host '[fd00::23]:49494'",
      form: async (ctx, text) => {
        await ctx.serve(text, 503);
        assert.deepEqual(await editors(), ["photoshop-1", "photoshop-2", "photoshop-3"]);
      },
    },
    {
      cmd: "BRIDGE_PHOTOSHOP_HOST=10.0.0.21,10.0.0.22:50000 BRIDGE_PHOTOSHOP_PASSWORD='…' image-editor-bridge serve --editor photoshop",
      form: async (ctx, text) => {
        await ctx.serve(text, 503);
        assert.deepEqual(await editors(), ["photoshop-1", "photoshop-2"]);
      },
    },
  ],

  "docs/templates.md": [
    // A designed card.psd and its rows are the reader's own; the CLI renders against a bridge in
    // test/methods/template-render.test.ts. Here: the options the page uses are the ones the CLI documents.
    {
      cmd: 'image-editor-bridge serve --editors 2 --files-root "$PWD" &',
      form: async (ctx) => {
        const r = await ctx.printedBy("image-editor-bridge help");
        for (const option of ["--editors", "--files-root"]) assert.ok(r.stdout.includes(option), option);
      },
    },
    {
      cmd: "image-editor-bridge render-template card.psd --data rows.csv -o 'out/{id}.png'",
      form: async (ctx) => {
        const r = await ctx.printedBy("image-editor-bridge help");
        assert.match(r.stdout, /render-template <file> --data <rows\.csv\|rows\.json> -o <pattern>/);
      },
    },
    // GIMP's: a real GIMP renders an XCF it made through the same command in test/hosts/gimp/template.test.ts.
    {
      cmd: 'image-editor-bridge serve --editor gimp --files-root "$PWD" &',
      form: async (ctx) => {
        const r = await ctx.printedBy("image-editor-bridge help");
        for (const option of ["--editor", "gimp", "--files-root"]) assert.ok(r.stdout.includes(option), option);
      },
    },
    {
      cmd: "image-editor-bridge render-template card.xcf --data rows.csv -o 'out/{id}.png'",
      form: async (ctx) => {
        const r = await ctx.printedBy("image-editor-bridge help");
        assert.match(r.stdout, /render-template <file> --data <rows\.csv\|rows\.json> -o <pattern>/);
      },
    },
  ],

  "examples/recipes/README.md": [
    // The product-card recipe runs in test/docs/product-card.test.ts (a bridge on port 0, the folder its files root,
    // each output checked). Here: the options the block uses are the ones the CLI documents, and the Python recipe
    // takes the arguments the block gives it.
    {
      cmd: "node examples/recipes/product-card/make-template.mjs cards",
      form: async () => {
        const text = await readFile(new URL("../../../examples/recipes/product-card/make-template.mjs", import.meta.url), "utf8");
        assert.match(text, /usage: make-template\.mjs <folder>/);
      },
    },
    {
      cmd: "image-editor-bridge serve --editors 2 --files-root cards &",
      form: async (ctx) => {
        const r = await ctx.printedBy("image-editor-bridge help");
        for (const option of ["--editors", "--files-root"]) assert.ok(r.stdout.includes(option), option);
      },
    },
    {
      cmd: "(cd cards && mkdir -p out && image-editor-bridge render-template card.psd --data ../examples/recipes/product-card/products.csv -o 'out/{id}.png' --trim)",
      form: async (ctx) => {
        const r = await ctx.printedBy("image-editor-bridge help");
        assert.match(r.stdout, /render-template <file> --data <rows\.csv\|rows\.json> -o <pattern> .*\[--trim\]/);
      },
    },
    {
      cmd: "python3 examples/recipes/product-card/render_products.py cards cards/py",
      form: async () => {
        const text = await readFile(new URL("../../../examples/recipes/product-card/render_products.py", import.meta.url), "utf8");
        assert.match(text, /usage: render_products\.py <folder> <out-folder>/);
      },
    },
  ],

  "docs/cluster.md": [
    {
      cmd: "nats-server -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats",
      needs: () => which("nats-server"),
      form: async (ctx) => {
        const r = await ctx.run("nats-server --help");
        assert.match(r.stdout + r.stderr, /-js\b[\s\S]*-sd\b|-sd\b[\s\S]*-js\b/);
      },
    },
    ...["a", "b", "c"].map((name, i) => ({
      cmd: `image-editor-bridge serve --listen 127.0.0.1:770${i + 1} --cluster nats://127.0.0.1:4222 --cluster-name studio --cluster-bridge ${name}`,
      // Run on the docs' own address, with no NATS there: the bridge serves its editor, degraded, still joining.
      form: async (ctx, text) => {
        await ctx.serve(withoutNatsWait(text.replace(/127\.0\.0\.1:770\d/, "127.0.0.1:7700")), 200);
        const { cluster, editors } = await status();
        assert.deepEqual([cluster.name, cluster.bridge, cluster.state], ["studio", name, "connecting"]);
        assert.deepEqual(editors.map((e) => e.id), [`embedded-1@${name}`]);
      },
    })),
    {
      cmd: "image-editor-bridge serve --listen 127.0.0.1:7700 --editors 0 --cluster nats://127.0.0.1:4222 --cluster-name studio --cluster-bridge door",
      // No NATS there: the front door starts, runs no editor, and waits to join (not ready meanwhile: 503).
      form: async (ctx, text) => {
        await ctx.serve(withoutNatsWait(text), 503);
        const { cluster, editors } = await status();
        assert.deepEqual([cluster.name, cluster.bridge, cluster.state, editors.length], ["studio", "door", "connecting", 0]);
      },
    },
  ],

  "docs/plugins.md": [
    { cmd: "npm start -- --plugins-dir examples/plugins", same: "README.md" },
    {
      cmd: "image-editor-bridge serve --plugin ./my-plugin --plugin ./other --plugins-dir ~/bridge-plugins",
      why: "in a project folder of the user's: ./my-plugin is the README's example, ./other this page's definition, ~/bridge-plugins holds a copy of examples/plugins/layer-stats",
      before: async (ctx) => {
        const project = join(ctx.machine.base, "project");
        await readmePlugin(ctx.machine.repo, join(project, "my-plugin"));
        ctx.otherId = await definitionPlugin(ctx.machine.repo, join(project, "other"));
        await cp(join(ctx.machine.repo, "examples", "plugins", "layer-stats"), join(ctx.machine.home, "bridge-plugins", "layer-stats"), { recursive: true });
        ctx.cwd = project;
      },
      serve: { ready: 200 },
      check: async (ctx) => {
        assert.deepEqual(await plugins(), { loaded: ["hello", ctx.otherId, "layer-stats"], failed: [] });
        const ping = await http("/plugins/hello/ping");
        assert.deepEqual(await ping.json(), { pong: true });
        const fonts = await http(`/plugins/${ctx.otherId}/fonts`);
        assert.deepEqual(await fonts.json(), ["Inter", "Roboto"]);
      },
    },
  ],

  "docs/reliability.md": [
    {
      cmd: "npx vitest run test/reliability",
      form: async (ctx) => {
        const files = await readdir(join(ctx.machine.repo, "test", "reliability"));
        assert.ok(files.filter((f) => f.endsWith(".test.ts")).length >= 5, files.join(", "));
      },
    },
    {
      cmd: "SOAK_SECONDS=900 npx vitest run test/reliability/soak.test.ts",
      form: async (ctx) => assert.match(await readFile(join(ctx.machine.repo, "test", "reliability", "soak.test.ts"), "utf8"), /SOAK_SECONDS/),
    },
    {
      cmd: "RELIABILITY_REPORT=1 npx vitest run test/reliability",
      form: async (ctx) => {
        const dir = join(ctx.machine.repo, "test", "reliability");
        const texts = await Promise.all((await readdir(dir)).map((f) => readFile(join(dir, f), "utf8")));
        assert.ok(texts.some((t) => t.includes("RELIABILITY_REPORT")));
      },
    },
  ],

  "bench/README.md": [
    {
      cmd: "npm run bench",
      form: async (ctx) => {
        const { scripts } = JSON.parse(await readFile(join(ctx.machine.repo, "package.json"), "utf8"));
        assert.match(scripts.bench, /node bench\/run\.js$/);
      },
    },
    {
      cmd: "node bench/run.js ws-rpc http",
      form: async (ctx) => {
        // An unknown name lists the known ones and exits 2 before anything runs.
        const r = await ctx.printedBy("node bench/run.js no-such-benchmark");
        assert.equal(r.code, 2);
        for (const name of ["ws-rpc", "http"]) assert.match(r.stderr, new RegExp(`\\b${name}\\b`));
      },
    },
    {
      cmd: "node bench/fanout.js",
      form: async (ctx) => assert.match(await readFile(join(ctx.machine.repo, "bench", "fanout.js"), "utf8"), /printIfMain\(import\.meta, run\)/),
    },
    {
      cmd: "npm run bench -- limit fanout-saturate clients-10k",
      form: async (ctx) => {
        const r = await ctx.printedBy("node bench/run.js no-such-benchmark");
        assert.equal(r.code, 2);
        for (const name of ["limit", "fanout-saturate", "clients-10k"]) assert.match(r.stderr, new RegExp(`\\b${name}\\b`));
      },
    },
    { cmd: "npm run bench -- limit --compare main", form: benchFlag("--compare") },
    { cmd: "npm run bench -- limit fanout-saturate --compare main --rounds 5", form: benchFlag("--rounds") },
    {
      cmd: "npm run bench -- fanout-saturate --compare HEAD --patch bench/ablations/no-per-client-seq.patch",
      form: async (ctx) => {
        await benchFlag("--patch")(ctx);
        await readFile(join(ctx.machine.repo, "bench", "ablations", "no-per-client-seq.patch"), "utf8");
      },
    },
    {
      cmd: "BENCH_LIMIT_CASES=ws16,health node bench/limit.js",
      form: async (ctx) => assert.match(await readFile(join(ctx.machine.repo, "bench", "limit.js"), "utf8"), /BENCH_LIMIT_CASES/),
    },
    { cmd: "node bench/profile.js area-ws 8", form: async (ctx) => void (await readFile(join(ctx.machine.repo, "bench", "profile.js"), "utf8")) },
    {
      cmd: "node bench/profile-summary.js <file.cpuprofile> 30 2000",
      form: async (ctx) => void (await readFile(join(ctx.machine.repo, "bench", "profile-summary.js"), "utf8")),
    },
  ],

  "bench/ablations/README.md": [
    {
      cmd: "npm run bench -- limit --compare HEAD --patch bench/ablations/no-connection-logs.patch",
      form: async (ctx) => {
        await benchFlag("--patch")(ctx);
        await readFile(join(ctx.machine.repo, "bench", "ablations", "no-connection-logs.patch"), "utf8");
      },
    },
  ],
};

/** A form check: `bench/run.js` takes this flag. */
function benchFlag(flag) {
  return async (ctx) => {
    const text = await readFile(join(ctx.machine.repo, "bench", "run.js"), "utf8");
    const compare = await readFile(join(ctx.machine.repo, "bench", "_compare.js"), "utf8").catch(() => "");
    assert.ok(text.includes(flag) || compare.includes(flag), `bench/run.js knows ${flag}`);
  };
}
