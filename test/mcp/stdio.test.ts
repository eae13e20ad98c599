import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { startOnSharedEditor } from "../helpers/shared-editor.js";

/*
 * `image-editor-bridge mcp` as MCP clients start it: a child process speaking JSON-RPC on stdin/stdout. Runs the
 * built CLI (dist/), so `npm run build` first.
 */
const BIN = fileURLToPath(new URL("../../bin/image-editor-bridge.js", import.meta.url));

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function stdioClient(args: string[]): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", ...args],
    env: { PATH: process.env["PATH"] ?? "", BRIDGE_LOG_LEVEL: "silent" },
    stderr: "pipe",
  });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return client;
}

describe("image-editor-bridge mcp (stdio)", () => {
  it("--embedded starts a bridge whose tools work, with files confined to the folder it was started in; a client closing the session ends the process quietly: nothing on stderr", async () => {
    const folder = await mkdtemp(join(tmpdir(), "mcp-stdio-"));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", "--embedded"],
      cwd: folder,
      env: { PATH: process.env["PATH"] ?? "", BRIDGE_LOG_LEVEL: "silent" },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += String(chunk)));
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(transport);
    const pid = transport.pid!;
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain("document_current");
    expect(names).not.toContain("jsx_run");
    const current = CallToolResultSchema.parse(await client.callTool({ name: "document_current", arguments: {} }));
    expect(current.isError).toBeFalsy();
    const info = CallToolResultSchema.parse(await client.callTool({ name: "getServerInfo", arguments: {} }));
    expect((info.structuredContent as { filesRoots: string[] }).filesRoots).toHaveLength(1);
    const inside = CallToolResultSchema.parse(await client.callTool({ name: "document_export", arguments: { path: "out.png", format: "png" } }));
    expect(inside.isError).toBeFalsy();
    expect((await stat(join(folder, "out.png"))).size).toBeGreaterThan(0);
    const outside = CallToolResultSchema.parse(await client.callTool({ name: "document_export", arguments: { path: join(tmpdir(), "mcp-escape.png"), format: "png" } }));
    expect(outside.isError).toBe(true);
    expect((outside.content[0] as { text: string }).text).toMatch(/^FORBIDDEN: /);
    // The client closes the session: the process ends, and says nothing on stderr.
    await client.close();
    const running = (): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    while (running()) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stderr).toBe("");
  });

  it("--url drives a running bridge: a call there answers the same document", async () => {
    const harness = await startOnSharedEditor({ token: "stdio-token" });
    const ws = await harness.connect("/ws", { protocols: ["bearer.stdio-token"] });
    const expected = await ws.call<{ id: number; name: string }>("document:current");
    const client = await stdioClient(["--url", harness.bridge.url, "--token", "stdio-token"]);
    const result = CallToolResultSchema.parse(await client.callTool({ name: "document_current", arguments: {} }));
    expect(result.structuredContent).toMatchObject({ id: expected.id, name: expected.name });
  });

  it("--url of a bridge that is not running ends with one clear line and a non-zero status", async () => {
    const child = spawn(process.execPath, [BIN, "mcp", "--url", "http://127.0.0.1:9"], { env: { PATH: process.env["PATH"] ?? "" }, stdio: "pipe" });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += String(chunk)));
    const [code] = (await once(child, "exit")) as [number];
    expect(code).not.toBe(0);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/cannot start: cannot reach the bridge at http:\/\/127\.0\.0\.1:9/);
  });
});
