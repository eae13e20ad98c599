import type { Readable, Writable } from "node:stream";
import type { McpBackend } from "./backend.js";
import { loadMcpSdk } from "./sdk.js";
import { createMcpServer, type McpServerOptions } from "./server.js";

export interface McpStdioOptions extends McpServerOptions {
  /** @default process.stdin */
  readonly input?: Readable;
  /** Where JSON-RPC messages go, and nothing else (logs go to stderr). @default process.stdout */
  readonly output?: Writable;
}

/** A running stdio MCP server: `closed` settles when the client ends stdin or `close()` is called. */
export interface McpStdio {
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves one MCP session over stdin/stdout (`image-editor-bridge mcp`), the way MCP clients start local servers.
 * Rejects with NOT_SUPPORTED when the SDK is not installed.
 */
export async function serveMcpStdio(backend: McpBackend, options: McpStdioOptions): Promise<McpStdio> {
  const sdk = await loadMcpSdk();
  const input = options.input ?? process.stdin;
  const mcp = createMcpServer(sdk, backend, options);
  const transport = new sdk.stdio.StdioServerTransport(input, options.output ?? process.stdout);
  let finish: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    // `closing` is set before the SDK closes: its close calls the transport's `onclose` at once, which lands here
    // again and, with nothing set yet, closed again, until the stack ran out.
    closing ??= Promise.resolve()
      .then(() => mcp.close())
      .then(finish, finish);
    return closing;
  };
  transport.onclose = () => void close();
  // The SDK's transport does not watch for the end of its input: a client that exits ends the session.
  input.once("end", () => void close());
  await mcp.server.connect(transport);
  return { closed, close };
}
