import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, type Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { firstEditor, startBridge, untilEditor, type Harness } from "../helpers/bridge.js";

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close().catch(() => {})));
});

async function mcpClient(harness: Harness): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${harness.bridge.url}/mcp`)));
  open.push(client);
  return client;
}

describe("MCP progress and cancellation", () => {
  it("a tool call with a progress token receives the editor's progress as notifications/progress", async () => {
    // Inline: the editor process would space reports out in time, and this test waits on events, not time.
    const harness = await startBridge({ embedded: { isolation: "inline" }, mcp: { allowScripts: true } });
    const client = await mcpClient(harness);
    const reports: Progress[] = [];
    const result = await client.callTool(
      { name: "jsx_run", arguments: { script: `progress(0.25, "quarter"); progress(0.75, "most"); "done"` } },
      CallToolResultSchema,
      { onprogress: (progress) => reports.push(progress) },
    );
    expect(result.isError).toBeFalsy();
    expect(reports).toEqual([
      { progress: 0.25, total: 1, message: "quarter" },
      { progress: 0.75, total: 1, message: "most" },
    ]);
  });

  it("aborting a tool call cancels it on the bridge: the editor is free again without a restart", async () => {
    const harness = await startBridge({ mcp: { allowScripts: true } });
    const client = await mcpClient(harness);
    const controller = new AbortController();
    const looping = client.callTool({ name: "jsx_run", arguments: { script: "for(;;){}", timeoutMs: 60_000 } }, CallToolResultSchema, { signal: controller.signal });
    await untilEditor(harness, (view) => view.running === 1);
    controller.abort();
    await expect(looping).rejects.toThrow();
    await untilEditor(harness, (view) => view.running === 0);
    const next = CallToolResultSchema.parse(await client.callTool({ name: "document_current", arguments: {} }));
    expect(next.isError).toBeFalsy();
    expect((await firstEditor(harness)).restarts).toBe(0);
  });
});
