import { randomUUID } from "node:crypto";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Logger } from "../logger.js";
import { BridgeError } from "../protocol/index.js";
import type { McpBackend } from "./backend.js";
import { loadMcpSdk, type McpSdk } from "./sdk.js";
import { createMcpServer, type BridgeMcpServer } from "./server.js";

/** The path of the Streamable HTTP endpoint on the bridge's port. */
export const MCP_PATH = "/mcp";
/** The header carrying an MCP session's id. */
const SESSION_HEADER = "mcp-session-id";
/** How much of a session id names its lane and its log lines: enough to tell sessions apart, not enough to reuse one. */
const SESSION_PREFIX_LENGTH = 8;

export interface McpHttpOptions {
  /** A backend for one session's calls, on the given mailbox lane. */
  readonly backend: (lane: string) => McpBackend;
  readonly allowScripts: boolean;
  /** `mcpMaxSessions`. */
  readonly maxSessions: number;
  /** `mcpMaxImageBytes`. */
  readonly maxImageBytes: number;
  readonly log: Logger;
  /** Loads the SDK on the first session. @default {@link loadMcpSdk} */
  readonly loadSdk?: () => Promise<McpSdk>;
}

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly mcp: BridgeMcpServer;
  readonly backend: McpBackend;
}

/** The `/mcp` endpoint: one transport and server per session, ended by the client's DELETE or the bridge's close. */
export interface McpHttp {
  /** Answers one request whose JSON body (if any) was already read; throws a `BridgeError` to refuse it. */
  handle(request: Request, body: unknown): Promise<Response>;
  close(): Promise<void>;
}

const isInitialize = (body: unknown): boolean =>
  (Array.isArray(body) ? body : [body]).some((message) => typeof message === "object" && message !== null && (message as { method?: unknown }).method === "initialize");

/**
 * Streamable HTTP sessions on the bridge. Access (token, Host, Origin) is checked by the route's guard like every
 * other route's, before a request gets here; the SDK loads on the first request only.
 */
export function createMcpHttp(options: McpHttpOptions): McpHttp {
  const sessions = new Map<string, Session>();
  /** Sessions being set up (an `initialize` in flight): they count against the limit too. */
  let opening = 0;

  const end = async (id: string): Promise<void> => {
    const session = sessions.get(id);
    if (session === undefined) return;
    sessions.delete(id);
    await session.mcp.close().catch(() => {});
    await session.backend.close().catch(() => {});
    options.log.info({ actor: `mcp:${id.slice(0, SESSION_PREFIX_LENGTH)}` }, "MCP session ended");
  };

  const open = async (request: Request, body: unknown): Promise<Response> => {
    if (sessions.size + opening >= options.maxSessions) {
      throw new BridgeError("HOST_BUSY", `At most ${options.maxSessions} MCP sessions may be open at once; end one (DELETE ${MCP_PATH}) first`, {
        details: { limit: options.maxSessions },
      });
    }
    opening++;
    try {
      const sdk = await (options.loadSdk ?? loadMcpSdk)();
      const id = randomUUID();
      const lane = `mcp:${id.slice(0, SESSION_PREFIX_LENGTH)}`;
      const backend = options.backend(lane);
      const mcp = createMcpServer(sdk, backend, { allowScripts: options.allowScripts, maxImageBytes: options.maxImageBytes });
      const transport = new sdk.http.WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => id,
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, { transport, mcp, backend });
          options.log.info({ actor: lane }, "MCP session started");
        },
        onsessionclosed: (sessionId) => end(sessionId),
      });
      transport.onclose = () => void end(id);
      await mcp.server.connect(transport);
      const response = await transport.handleRequest(request, { parsedBody: body });
      // An initialize the transport refused leaves no session behind.
      if (!sessions.has(id)) await mcp.close().catch(() => {});
      return response;
    } finally {
      opening--;
    }
  };

  return {
    async handle(request, body) {
      const id = request.headers.get(SESSION_HEADER);
      if (id === null) {
        if (request.method === "POST" && isInitialize(body)) return open(request, body);
        throw new BridgeError("BAD_REQUEST", `An MCP request needs the ${SESSION_HEADER} header of its session; a session starts with an initialize request`);
      }
      const session = sessions.get(id);
      if (session === undefined) throw new BridgeError("NOT_FOUND", "No MCP session has this id (it ended, or the bridge restarted): initialize a new one");
      return session.transport.handleRequest(request, request.method === "POST" ? { parsedBody: body } : undefined);
    },
    async close() {
      await Promise.all([...sessions.keys()].map(end));
    },
  };
}
