import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { Ajv } from "ajv";
import { afterEach, describe, expect, it } from "vitest";
import { EDIT_METHOD_SCHEMAS, type HostLayer } from "../../src/protocol/index.js";
import { toolName } from "../../src/mcp/index.js";
import { startBridge, type Harness } from "../helpers/bridge.js";

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close().catch(() => {})));
});

async function mcpClient(harness: Harness): Promise<Client> {
  const client = new Client({ name: "edit-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${harness.bridge.url}/mcp`)));
  open.push(client);
  return client;
}

const EDIT_METHODS = Object.keys(EDIT_METHOD_SCHEMAS);
const DESTRUCTIVE = ["layer:delete", "layer:merge", "layer:clear", "document:flatten", "document:crop"];

describe("the edit methods as MCP tools", () => {
  it("every edit is a tool with valid input and output schemas, without the script flag; the destructive ones say so", async () => {
    const client = await mcpClient(await startBridge());
    const listed = ListToolsResultSchema.parse(await client.listTools());
    const ajv = new Ajv({ strict: false });
    for (const method of EDIT_METHODS) {
      const tool = listed.tools.find((t) => t.name === toolName({ name: method }));
      expect(tool, method).toBeDefined();
      expect(() => ajv.compile(tool!.inputSchema), method).not.toThrow();
      if (tool!.outputSchema !== undefined) expect(() => ajv.compile(tool!.outputSchema!), method).not.toThrow();
      expect(tool!.annotations?.destructiveHint, method).toBe(DESTRUCTIVE.includes(method));
      expect(tool!.annotations?.readOnlyHint, method).toBe(false);
    }
  });

  it("an agent hides, renames and moves a layer; the tree read over WS shows each change", async () => {
    const harness = await startBridge();
    const ws = await harness.connect();
    const client = await mcpClient(harness);
    const call = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const result = CallToolResultSchema.parse(await client.callTool({ name, arguments: args }));
      expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
      return result.structuredContent as Record<string, unknown>;
    };
    // The sample: Label, the group Product (Subject, Shadow), Background. Shadow leaves its group for the top.
    const layers = await ws.call<HostLayer[]>("document:layers");
    const top = layers[0]!;
    const last = layers.flatMap((layer) => layer.children ?? []).find((layer) => layer.name === "Shadow")!;
    const before = await ws.call<{ revision: number }>("document:current");

    expect(await call("layer_update", { layerId: last.id, visible: false })).toMatchObject({ id: last.id, visible: false, revision: before.revision + 1 });
    expect(await call("layer_update", { layerId: last.id, name: "Renamed by an agent" })).toMatchObject({ id: last.id, name: "Renamed by an agent" });
    await call("layer_move", { layerId: last.id, above: top.id });

    const after = await ws.call<HostLayer[]>("document:layers");
    expect(after[0]).toMatchObject({ id: last.id, name: "Renamed by an agent", visible: false });
    expect(after[1]!.id).toBe(top.id);
    expect((await ws.call<{ revision: number }>("document:current")).revision).toBe(before.revision + 3);

    // A mistake comes back as the tool's error, and changes nothing.
    const refused = CallToolResultSchema.parse(await client.callTool({ name: "layer_update", arguments: { layerId: 987654, visible: true } }));
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ error: { code: "LAYER_NOT_FOUND" } });
    expect((await ws.call<{ revision: number }>("document:current")).revision).toBe(before.revision + 3);
  });
});
