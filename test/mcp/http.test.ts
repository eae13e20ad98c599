import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ListToolsResultSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Ajv } from "ajv";
import sharp from "sharp";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { allowedFor, BUILTIN_METHODS } from "../../src/methods/index.js";
import { EXCLUDED_METHODS, SCRIPT_METHODS, toolName } from "../../src/mcp/index.js";
import { startBridge, type Harness } from "../helpers/bridge.js";

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close().catch(() => {})));
});

/** An MCP client of the bridge's `/mcp`, closed after the test. */
async function mcpClient(harness: Harness, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${harness.bridge.url}/mcp`), { requestInit: { headers } }));
  open.push(client);
  return client;
}

const inline = { embedded: { isolation: "inline" as const } };

describe("MCP over Streamable HTTP at /mcp", () => {
  it("lists a tool for every built-in method that makes sense as one, each with a valid JSON Schema object as input", async () => {
    const harness = await startBridge(inline);
    const client = await mcpClient(harness);
    const listed = ListToolsResultSchema.parse(await client.listTools());
    const names = listed.tools.map((tool) => tool.name).sort();
    const expected = BUILTIN_METHODS.filter((m) => !EXCLUDED_METHODS.includes(m.name) && !SCRIPT_METHODS.includes(m.name)).map(toolName).sort();
    expect(names).toEqual(expected);
    expect(names).toContain("document_current");
    const ajv = new Ajv({ strict: false });
    for (const tool of listed.tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
      if (tool.outputSchema !== undefined) expect(() => ajv.compile(tool.outputSchema!), tool.name).not.toThrow();
    }
    const current = listed.tools.find((tool) => tool.name === "document_current")!;
    expect(current.annotations?.readOnlyHint).toBe(true);
    expect(listed.tools.find((tool) => tool.name === "document_save")!.annotations?.destructiveHint).toBe(true);
  });

  it("leaves the script tools out unless scripts are allowed", async () => {
    const closed = await mcpClient(await startBridge(inline));
    const allowed = await mcpClient(await startBridge({ ...inline, mcp: { allowScripts: true } }));
    const namesOf = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);
    expect(await namesOf(closed)).not.toContain("jsx_run");
    expect(await namesOf(allowed)).toEqual(expect.arrayContaining(["jsx_run", "jsx_execute"]));
  });

  it("document_current answers the active document as structured content and text", async () => {
    const harness = await startBridge(inline);
    const ws = await harness.connect();
    const expected = await ws.call<{ id: number; name: string; width: number }>("document:current");
    const client = await mcpClient(harness);
    const result = CallToolResultSchema.parse(await client.callTool({ name: "document_current", arguments: {} }));
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ id: expected.id, name: expected.name, width: expected.width });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({ id: expected.id });
  });

  it("an exported document comes back as image content that decodes to the document's size", async () => {
    const harness = await startBridge(inline);
    const ws = await harness.connect();
    const doc = await ws.call<{ width: number; height: number }>("document:current");
    const client = await mcpClient(harness);
    const result = CallToolResultSchema.parse(await client.callTool({ name: "image_exportDocument", arguments: { format: "png" } }));
    const image = result.content.find((c) => c.type === "image") as { data: string; mimeType: string };
    expect(image.mimeType).toBe("image/png");
    const meta = await sharp(Buffer.from(image.data, "base64")).metadata();
    expect([meta.width, meta.height]).toEqual([doc.width, doc.height]);
    expect(result.structuredContent).toMatchObject({ format: "png", width: doc.width, height: doc.height });
  });

  it("an image over mcpMaxImageBytes is downscaled to fit, with a note saying so", async () => {
    const harness = await startBridge({ ...inline, limits: { mcpMaxImageBytes: 2_000 } });
    const ws = await harness.connect();
    const doc = await ws.call<{ width: number; height: number }>("document:current");
    const client = await mcpClient(harness);
    const result = CallToolResultSchema.parse(await client.callTool({ name: "image_exportDocument", arguments: { format: "png" } }));
    const image = result.content.find((c) => c.type === "image") as { data: string } | undefined;
    const note = result.content.find((c) => c.type === "text") as { text: string } | undefined;
    expect(note?.text).toMatch(/downscaled|could not be made smaller/);
    if (image !== undefined) {
      const bytes = Buffer.from(image.data, "base64");
      expect(bytes.byteLength).toBeLessThanOrEqual(2_000);
      expect((await sharp(bytes).metadata()).width).toBeLessThan(doc.width);
    }
  });

  it("a bad argument is a tool error carrying the bridge's code", async () => {
    const client = await mcpClient(await startBridge(inline));
    const result = CallToolResultSchema.parse(await client.callTool({ name: "layer_getInfoById", arguments: { layerId: "seven" } }));
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(/^BAD_REQUEST: /);
    expect((result.structuredContent as { error: { code: string } }).error.code).toBe("BAD_REQUEST");
  });

  it("lists documents as resources and reads a document and a layer preview", async () => {
    const harness = await startBridge(inline);
    const ws = await harness.connect();
    const doc = await ws.call<{ id: number }>("document:current");
    const layers = await ws.call<Array<{ id: number }>>("document:layers");
    const client = await mcpClient(harness);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`image-editor-bridge://documents/${doc.id}`);
    const read = await client.readResource({ uri: `image-editor-bridge://documents/${doc.id}` });
    const body = JSON.parse((read.contents[0] as { text: string }).text) as { document: { id: number }; layers: unknown[] };
    expect(body.document.id).toBe(doc.id);
    expect(body.layers.length).toBe(layers.length);
    const preview = await client.readResource({ uri: `image-editor-bridge://documents/${doc.id}/layers/${layers[0]!.id}/preview` });
    const blob = preview.contents[0] as { blob: string; mimeType: string };
    expect(blob.mimeType).toBe("image/png");
    expect((await sharp(Buffer.from(blob.blob, "base64")).metadata()).format).toBe("png");
  });

  it("a subscribed document is reported updated after another client sets the selection", async () => {
    const harness = await startBridge(inline);
    const ws = await harness.connect();
    const doc = await ws.call<{ id: number }>("document:current");
    const client = await mcpClient(harness);
    const uri = `image-editor-bridge://documents/${doc.id}`;
    const updated = new Promise<string>((resolve) => client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)));
    await client.subscribeResource({ uri });
    await ws.call("selection:set", { rect: { x: 1, y: 2, width: 10, height: 10 } });
    expect(await updated).toBe(uri);
  });

  it("refuses a foreign Origin with 403 before any MCP handling", async () => {
    const harness = await startBridge(inline);
    const response = await harness.http("/mcp", {
      method: "POST",
      headers: { origin: "https://evil.example", "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { code: string }).code).toBe("FORBIDDEN");
  });

  it("lets an allowed browser origin end its session and send the MCP headers (CORS preflight)", async () => {
    const harness = await startBridge({ ...inline, allowOrigins: ["http://app.example"] });
    const preflight = await harness.http("/mcp", {
      method: "OPTIONS",
      headers: { origin: "http://app.example", "access-control-request-method": "DELETE", "access-control-request-headers": "mcp-session-id" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toContain("DELETE");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("mcp-session-id");
  });

  it("needs the token when the bridge has one", async () => {
    const harness = await startBridge({ ...inline, token: "secret-token" });
    await expect(mcpClient(harness)).rejects.toThrow();
    const client = await mcpClient(harness, { authorization: "Bearer secret-token" });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it("a read-token session offers only the tools that change nothing, and may not drive a full session", async () => {
    const harness = await startBridge({ ...inline, token: "full-token", readToken: "read-token" });
    const reader = await mcpClient(harness, { authorization: "Bearer read-token" });
    const names = (await reader.listTools()).tools.map((tool) => tool.name).sort();
    const readable = BUILTIN_METHODS.filter((m) => allowedFor("read", m) && !EXCLUDED_METHODS.includes(m.name) && !SCRIPT_METHODS.includes(m.name)).map(toolName).sort();
    expect(names).toEqual(readable);
    expect(names).toContain("document_current");
    expect(names).not.toContain("selection_set");
    expect(names).not.toContain("document_export");
    const current = CallToolResultSchema.parse(await reader.callTool({ name: "document_current", arguments: {} }));
    expect(current.isError).not.toBe(true);

    // The full token's session, named by a request that carries the read token: refused.
    const transport = new StreamableHTTPClientTransport(new URL(`${harness.bridge.url}/mcp`), { requestInit: { headers: { authorization: "Bearer full-token" } } });
    const writer = new Client({ name: "test", version: "1.0.0" });
    await writer.connect(transport);
    open.push(writer);
    expect((await writer.listTools()).tools.map((tool) => tool.name)).toContain("selection_set");
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: "Bearer read-token", "mcp-session-id": transport.sessionId! };
    const borrowed = await harness.http("/mcp", { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }) });
    expect(borrowed.status).toBe(403);
    expect(await borrowed.json()).toMatchObject({ code: "FORBIDDEN", details: { scope: "read" } });
  });

  it("refuses a request naming no session or an unknown one", async () => {
    const harness = await startBridge(inline);
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const call = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect((await harness.http("/mcp", { method: "POST", headers, body: call })).status).toBe(400);
    const unknown = await harness.http("/mcp", { method: "POST", headers: { ...headers, "mcp-session-id": "nope" }, body: call });
    expect(unknown.status).toBe(404);
  });

  it("a session past mcpMaxSessions ends the longest-idle one, whose client then gets 404", async () => {
    const harness = await startBridge({ ...inline, limits: { mcpMaxSessions: 1 } });
    const first = await mcpClient(harness);
    expect((await first.listTools()).tools.length).toBeGreaterThan(0);
    const second = await mcpClient(harness);
    expect((await second.listTools()).tools.length).toBeGreaterThan(0);
    await expect(first.listTools()).rejects.toThrow(/404|not found|session/i);
    await (second.transport as StreamableHTTPClientTransport).terminateSession();
    const again = await mcpClient(harness);
    expect((await again.listTools()).tools.length).toBeGreaterThan(0);
  });

  it("a session answering a tool call is never ended to make room: the next initialize is refused until the call ends", async () => {
    const folder = await mkdtemp(join(tmpdir(), "mcp-hold-"));
    // The plugin runs in the bridge's thread (isolation none) and holds its call until the test lets it go.
    let entered!: () => void;
    let release!: () => void;
    const inCall = new Promise<void>((resolve) => (entered = resolve));
    const hold = { entered: () => entered(), released: new Promise<void>((resolve) => (release = resolve)) };
    (globalThis as { __mcpHold?: unknown }).__mcpHold = hold;
    try {
      await writeFile(join(folder, "package.json"), JSON.stringify({ name: "hold", type: "module", main: "index.js", imageEditorBridge: { id: "hold", mcp: true } }));
      await writeFile(
        join(folder, "index.js"),
        `export default { id: "hold", setup(ctx) { ctx.method("hold:wait", async () => { globalThis.__mcpHold.entered(); await globalThis.__mcpHold.released; return { done: true }; }); } };`,
      );
      const harness = await startBridge({ ...inline, plugins: [folder], pluginIsolation: "none", limits: { mcpMaxSessions: 1 } });
      const busy = await mcpClient(harness);
      const call = busy.callTool({ name: "hold__hold_wait", arguments: {} });
      await inCall;
      await expect(mcpClient(harness)).rejects.toThrow(/HOST_BUSY|503/);
      release();
      expect(CallToolResultSchema.parse(await call).structuredContent).toEqual({ done: true });
      // Its answer read to the end, the session is idle: a new one takes its place.
      const next = await mcpClient(harness);
      expect((await next.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      release();
      delete (globalThis as { __mcpHold?: unknown }).__mcpHold;
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("a plugin's method is a tool named after its plugin, run on the plugin's endpoint, when its manifest offers it", async () => {
    const folder = await mkdtemp(join(tmpdir(), "mcp-plugin-"));
    const quiet = await mkdtemp(join(tmpdir(), "mcp-plugin-"));
    try {
      await writeFile(join(folder, "package.json"), JSON.stringify({ name: "wm", type: "module", main: "index.js", imageEditorBridge: { id: "wm", mcp: true } }));
      await writeFile(join(folder, "index.js"), `export default { id: "wm", setup(ctx) { ctx.method("watermark:apply", (params, call) => ({ text: params.text, endpoint: call.endpoint })); } };`);
      // Without the manifest's `mcp: true`, a plugin's methods stay off the tool list.
      await writeFile(join(quiet, "package.json"), JSON.stringify({ name: "quiet", type: "module", main: "index.js" }));
      await writeFile(join(quiet, "index.js"), `export default { id: "quiet", setup(ctx) { ctx.method("quiet:run", () => 1); } };`);
      const client = await mcpClient(await startBridge({ ...inline, plugins: [folder, quiet] }));
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names.filter((name) => name.startsWith("quiet__"))).toEqual([]);
      const tool = (await client.listTools()).tools.find((t) => t.name === "wm__watermark_apply");
      expect(tool?.inputSchema).toEqual({ type: "object" });
      const result = CallToolResultSchema.parse(await client.callTool({ name: "wm__watermark_apply", arguments: { text: "hi" } }));
      expect(result.structuredContent).toEqual({ text: "hi", endpoint: "wm" });
    } finally {
      await rm(folder, { recursive: true, force: true });
      await rm(quiet, { recursive: true, force: true });
    }
  });

  it("is absent when the bridge is started with mcp: false", async () => {
    const harness = await startBridge({ ...inline, mcp: false });
    expect((await harness.http("/mcp", { method: "POST", body: "{}" })).status).toBe(404);
  });
});
