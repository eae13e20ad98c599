import { execFile, execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Parser } from "@asyncapi/parser";
import { compileErrors, validate } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import { BUILTIN_METHODS } from "../../src/methods/index.js";
import { createAsyncApi, createOpenApi, referenceMarkdown, renderReferenceHtml, type AsyncApiDocument, type OpenApiDocument } from "../../src/methods/contract/index.js";
import { EVENTS_CHANNEL, methodChannel, PLUGIN_CHANNEL } from "../../src/methods/contract/asyncapi.js";
import { operationIdOf } from "../../src/methods/contract/catalog.js";
import { BATCH_METHOD, CANCEL_METHOD, ERROR_RULES, EVENT_SCHEMAS, PROGRESS_EVENT } from "../../src/protocol/index.js";
import { PACKAGE } from "../../src/version.js";
import type { Harness } from "../helpers/bridge.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";

const ROOT = join(import.meta.dirname, "../..");
const PLUGIN_FIXTURES = join(import.meta.dirname, "../plugins/fixtures");

async function documents(harness: Harness, init?: RequestInit): Promise<{ openapi: OpenApiDocument; asyncapi: AsyncApiDocument }> {
  const openapi = await harness.http("/openapi.json", init);
  const asyncapi = await harness.http("/asyncapi.json", init);
  expect(openapi.status).toBe(200);
  expect(asyncapi.status).toBe(200);
  expect(openapi.headers.get("content-type")).toMatch(/^application\/json/);
  return { openapi: (await openapi.json()) as OpenApiDocument, asyncapi: (await asyncapi.json()) as AsyncApiDocument };
}

/** Diagnostics of the AsyncAPI parser that are errors (severity 0), as readable lines. */
async function asyncApiErrors(document: unknown): Promise<string[]> {
  const diagnostics = await new Parser().validate(JSON.stringify(document));
  return diagnostics.filter((d) => d.severity === 0).map((d) => `${d.code}: ${d.message} at ${d.path.join("/")}`);
}

async function openApiErrors(document: unknown): Promise<string> {
  const result = await validate(structuredClone(document) as never);
  return result.valid ? "" : compileErrors(result);
}

const h3Path = (path: string): string => path.replace(/:(\w+)/g, "{$1}");

/**
 * For the case that validates the whole table's AsyncAPI document: 40–80 s was measured at load 12–16 on two
 * cores while `/ws` was one channel of every message (about 6 s on an idle core since each group of methods has its
 * channel). Only a stuck validator waits this out.
 */
const WHOLE_TABLE_TIMEOUT_MS = 300_000;

/**
 * A short method table, for cases whose subject is not the whole table. The AsyncAPI validator's time grows faster
 * than the table (resolved, every operation carries its channel with all the channel's messages): the whole table
 * takes seconds to validate, this one a fraction of a second. The whole table is validated once, as a bridge with a
 * plugin serves it (the plugin's parts added to everything a bridge without plugins serves); a document without plugins
 * is validated on this table.
 */
const FEW_METHODS = BUILTIN_METHODS.filter((m) => m.name === "document:current" || m.name === "layer:getInfoById");

describe("the published contract", () => {
  it("a bridge serves a valid OpenAPI 3.1 document and a valid AsyncAPI 3.0 document, with a loaded plugin's endpoint, methods, routes and events in both", async () => {
    // One bridge with a plugin: its documents hold the whole table and the plugin's parts, validated once (each
    // whole-table validation takes seconds). A document without plugins is validated on a short table below.
    const harness = await startOnSharedEditor({ plugins: [join(PLUGIN_FIXTURES, "stats")] });
    const { openapi, asyncapi } = await documents(harness);
    expect(openapi["openapi"]).toBe("3.1.0");
    expect(asyncapi["asyncapi"]).toBe("3.0.0");
    // The WebSocket server is named by the address the client reached.
    expect((asyncapi["servers"] as { bridge: { host: string } }).bridge.host).toBe(`127.0.0.1:${harness.bridge.port}`);
    expect(openapi["x-plugins"]).toEqual(["stats"]);
    expect(openapi["tags"]).toContainEqual(expect.objectContaining({ name: "plugin:stats" }));
    expect((asyncapi.channels["plugin"]!["parameters"] as { pluginId: { enum: string[] } }).pluginId.enum).toEqual(["stats"]);
    // What the plugin registered in its setup, read from the loaded plugin itself.
    expect(openapi.paths["/plugins/stats/layers/{index}"]?.["get"]).toMatchObject({ tags: ["plugin:stats"], parameters: [{ name: "index", in: "path" }] });
    expect(openapi.paths["/plugins/stats/echo"]?.["post"]).toBeDefined();
    expect(asyncapi.operations["plugin.stats.statsCount"]).toMatchObject({ title: "stats:count", "x-plugin": "stats" });
    expect(asyncapi.operations["plugin.stats.event.statsCounted"]).toMatchObject({ action: "send", title: "stats:counted" });
    // Read before the validators run for seconds: a kept-alive socket idle that long may be closed under the request.
    const docs = await (await harness.http("/docs")).text();
    expect(docs).toContain("<td><code>stats</code></td><td><code>/ws/stats</code></td>");
    expect(docs).toContain("GET /plugins/stats/layers/{index}");
    expect(await openApiErrors(openapi)).toBe("");
    expect(await asyncApiErrors(asyncapi)).toEqual([]);
  }, WHOLE_TABLE_TIMEOUT_MS);

  it("a document without plugins is valid, and the validators reject a broken one, so a pass means something", async () => {
    // Short tables, which validate in a fraction of a second: the error found must be the one made.
    const openapi = createOpenApi({ methods: FEW_METHODS, server: PACKAGE });
    const asyncapi = createAsyncApi({ methods: FEW_METHODS, server: PACKAGE });
    expect(await openApiErrors(openapi)).toBe("");
    expect(await asyncApiErrors(asyncapi)).toEqual([]);
    const paths = openapi.paths as Record<string, Record<string, Record<string, unknown>>>;
    (paths["/layer/by-id/{layerId}"]!["get"]!["parameters"] as unknown[])[0] = { name: "layerId", required: true };
    expect(await openApiErrors(openapi)).not.toBe("");
    (asyncapi.operations["documentCurrent"] as Record<string, unknown>)["action"] = "publish";
    expect(await asyncApiErrors(asyncapi)).toEqual([expect.stringMatching(/"action" property must be equal to one of the allowed values.* at operations\/documentCurrent\/action$/)]);
  });

  it("every method of the table appears with its params, result and HTTP route, and every route answers", async () => {
    const harness = await startOnSharedEditor();
    const { openapi, asyncapi } = await documents(harness);
    const names = [...BUILTIN_METHODS.map((m) => m.name), CANCEL_METHOD, BATCH_METHOD];
    for (const name of names) {
      const operation = asyncapi.operations[operationIdOf(name)];
      expect(operation, name).toMatchObject({ action: "receive", title: name });
      const request = asyncapi.components.messages[`${operationIdOf(name)}.request`]!;
      expect((request["payload"] as { properties: { method: unknown } }).properties.method).toEqual({ type: "string", const: name });
      // The operation's channel is its group's on /ws, and lists the response and the failure it answers with.
      expect(operation!["channel"], name).toEqual({ $ref: `#/channels/${methodChannel(name)}` });
      expect(asyncapi.channels[methodChannel(name)], name).toMatchObject({ address: "/ws" });
      expect(Object.keys(asyncapi.channels[methodChannel(name)]!.messages), name).toEqual(expect.arrayContaining([`${operationIdOf(name)}.response`, "failure"]));
    }
    const statuses = new Set(Object.values(ERROR_RULES).map((rule) => rule.status));
    for (const method of BUILTIN_METHODS) {
      if (method.http === undefined) continue;
      const operation = openapi.paths[h3Path(method.http.path)]?.[method.http.verb.toLowerCase()];
      expect(operation, method.name).toMatchObject({ operationId: operationIdOf(method.name), "x-method": method.name, description: method.description });
      const responses = operation!["responses"] as Record<string, { content?: Record<string, unknown> }>;
      for (const status of [400, 401, 403, 404, 413, 429, 499, 500, 501, 503, 504]) expect(responses[String(status)], `${method.name} ${status}`).toBeDefined();
      const media = Object.keys(responses["200"]!.content!);
      expect(media, method.name).toEqual(method.http.image ? ["application/json", "image/png", "image/jpeg", "image/webp"] : ["application/json"]);
      if (method.http.verb === "POST") expect(operation!["requestBody"], method.name).toBeDefined();
    }
    expect(openapi.paths["/batch"]?.["post"]).toMatchObject({ operationId: "batch", "x-method": BATCH_METHOD });
    // Every status of the error table has its response, each naming its codes.
    const responses = (openapi["components"] as { responses: Record<string, { description: string }> }).responses;
    for (const [code, rule] of Object.entries(ERROR_RULES)) expect(responses[`Error${rule.status}`]?.description).toContain(code);
    expect(Object.keys(responses).length).toBe(statuses.size);
    // The other way round: every fixed GET route the document lists is one the bridge answers.
    for (const path of ["/health", "/ready", "/status", "/metrics", "/schema", "/openapi.json", "/asyncapi.json", "/docs", "/plugins"]) {
      expect(openapi.paths[path]?.["get"], path).toBeDefined();
      expect((await harness.http(path)).status, path).toBe(200);
    }
    expect(openapi.paths["/events"]?.["get"]).toBeDefined();
    expect(openapi.paths["/events/ticket"]?.["post"]).toBeDefined();
    expect((await harness.http("/events?type=bogus")).status).toBe(400);
    for (const [path, item] of Object.entries(openapi.paths)) {
      const required = ((item["get"] as { parameters?: Array<{ required?: boolean }> } | undefined)?.parameters ?? []).some((p) => p.required === true);
      // Routes that need a value (`/events?type=…`) answer 400 without one, as documented; the rest answer as is.
      if (item["get"] === undefined || path.includes("{") || required) continue;
      expect([200, 204], `GET ${path}`).toContain((await harness.http(path)).status);
    }
  });

  it("every event appears: the main events, editor:restarted, progress and the connection events", async () => {
    const { asyncapi } = await documents(await startOnSharedEditor());
    for (const type of [...Object.keys(EVENT_SCHEMAS), "editor:restarted", PROGRESS_EVENT, "connected", "error"]) {
      const operation = asyncapi.operations[`send.${operationIdOf(type)}`];
      expect(operation, type).toMatchObject({ action: "send", title: type });
      expect(operation!["summary"], type).not.toBe("");
    }
    expect(asyncapi.channels[EVENTS_CHANNEL]).toMatchObject({ address: "/ws", bindings: { $ref: "#/components/channelBindings/ws" } });
    expect(asyncapi["x-close-codes"]).toContainEqual(expect.objectContaining({ code: 4409, name: "CLIENT_ATTACHED" }));
    const bindings = asyncapi.components["channelBindings"] as { ws: { ws: { query: { properties: object } } } };
    expect(Object.keys(bindings.ws.ws.query.properties)).toEqual(["resume", "takeover", "name", "binary", "editor"]);
    // Every channel of /ws and the plugin's shares those bindings.
    for (const [key, channel] of Object.entries(asyncapi.channels)) expect(channel["bindings"], key).toEqual({ $ref: "#/components/channelBindings/ws" });
    expect(asyncapi.components.messages["binaryPart"]).toMatchObject({ contentType: "application/octet-stream" });
  });

  it("a plugin's methods, routes and events appear when the bridge knows them, and the documents stay valid", async () => {
    // A short table beside the plugin: the whole table with a plugin is validated in the case above.
    const input = {
      methods: FEW_METHODS,
      server: PACKAGE,
      plugins: [{ id: "stats", methods: [{ name: "stats:count", description: "Counts layers." }], routes: [{ verb: "GET", path: "/count/:n" }], events: ["stats:counted"] }],
    };
    const openapi = createOpenApi(input);
    const asyncapi = createAsyncApi(input);
    expect(openapi.paths["/plugins/stats/count/{n}"]?.["get"]).toMatchObject({ tags: ["plugin:stats"], parameters: [{ name: "n", in: "path" }] });
    expect(asyncapi.operations["plugin.stats.statsCount"]).toMatchObject({ action: "receive", title: "stats:count", summary: "Counts layers.", "x-plugin": "stats" });
    expect(asyncapi.channels[PLUGIN_CHANNEL]).toMatchObject({ address: "/ws/{pluginId}" });
    expect(asyncapi.channels[PLUGIN_CHANNEL]!.messages["plugin.stats.statsCount.request"]).toBeDefined();
    for (const [key, channel] of Object.entries(asyncapi.channels)) if (key !== PLUGIN_CHANNEL) expect(channel.messages["plugin.stats.statsCount.request"], key).toBeUndefined();
    expect(asyncapi.operations["plugin.stats.event.statsCounted"]).toMatchObject({ action: "send", title: "stats:counted" });
    expect(renderReferenceHtml(openapi, asyncapi)).toContain(
      "<td><code>stats</code></td><td><code>/ws/stats</code></td><td><code>stats:count</code></td><td><code>GET /plugins/stats/count/{n}</code></td>",
    );
    expect(await openApiErrors(openapi)).toBe("");
    expect(await asyncApiErrors(asyncapi)).toEqual([]);
  });

  it("every example is valid params of its method", () => {
    let examples = 0;
    for (const method of BUILTIN_METHODS) {
      expect(method.description, method.name).toMatch(/\S/);
      for (const example of method.examples ?? []) {
        examples++;
        const parsed = method.params.safeParse(example);
        expect(parsed.success, `${method.name} ${JSON.stringify(example)} ${parsed.error?.message ?? ""}`).toBe(true);
      }
    }
    expect(examples).toBeGreaterThan(20);
  });

  it("the contract follows the token rules of /schema, and /docs is one self-contained page with an anchor per method", async () => {
    const harness = await startOnSharedEditor({ token: "s3cret" });
    for (const path of ["/schema", "/openapi.json", "/asyncapi.json", "/docs"]) {
      const refused = await harness.http(path);
      expect(refused.status, path).toBe(401);
      expect(((await refused.json()) as { code: string }).code).toBe("UNAUTHORIZED");
    }
    const auth = { headers: { authorization: "Bearer s3cret" } };
    const page = await harness.http("/docs", auth);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await page.text();
    for (const method of [...BUILTIN_METHODS.map((m) => m.name), CANCEL_METHOD, BATCH_METHOD]) {
      const anchor = `method-${method.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
      expect(html, method).toContain(`id="${anchor}"`);
      expect(html, method).toContain(`href="#${anchor}"`);
    }
    expect(html).toContain('id="event-selection-changed"');
    expect(html).toContain('id="errors"');
    expect(html).not.toMatch(/<script|\bsrc=|href="(?!#)/);
    await documents(harness, auth);
  });

  it("docs/api.md is what the build generates from the method table now", () => {
    const committed = readFileSync(join(ROOT, "docs/api.md"), "utf8");
    expect(committed).toBe(referenceMarkdown({ methods: BUILTIN_METHODS, server: PACKAGE }));
  });
});

/** Debian's python3, when the machine has one. */
const PYTHON = ["/usr/bin/python3", "python3"].find((candidate) => {
  try {
    execFileSync(candidate, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
});

describe(PYTHON === undefined ? "the Python example (skipped: this machine has no python3)" : "the Python example", () => {
  it.skipIf(PYTHON === undefined)("finds operations by operationId in /openapi.json and calls them", async () => {
    const harness = await startOnSharedEditor({ token: "py-token" });
    const output = await new Promise<string>((resolve, reject) => {
      execFile(PYTHON!, [join(ROOT, "examples/python/openapi_client.py"), harness.bridge.url], { env: { ...process.env, BRIDGE_TOKEN: "py-token" } }, (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      );
    });
    const lines = output.trim().split("\n");
    expect(lines[0]).toBe(`openapi 3.1.0: ${PACKAGE.name} HTTP API ${PACKAGE.version}`);
    const [health, current] = lines.slice(1).map((line) => /^(\w+) (GET|POST) (\S+) (\d+) (.*)$/.exec(line)!);
    expect(health!.slice(1, 5)).toEqual(["getHealth", "GET", "/health", "200"]);
    expect(JSON.parse(health![5]!)).toMatchObject({ status: "ok", name: PACKAGE.name });
    expect(current!.slice(1, 5)).toEqual(["documentCurrent", "GET", "/document/current", "200"]);
    const document = (await (await harness.http("/document/current", { headers: { authorization: "Bearer py-token" } })).json()) as Record<string, unknown>;
    expect(JSON.parse(current![5]!)).toEqual(document);
  });
});
