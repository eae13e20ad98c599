import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Logger } from "../logger.js";
import { type AccessScope, BridgeError } from "../protocol/index.js";
import type { McpBackend } from "./backend.js";
import { loadMcpSdk, type McpSdk } from "./sdk.js";
import { createMcpServer, type BridgeMcpServer } from "./server.js";

/** The path of the Streamable HTTP endpoint on the bridge's port. */
export const MCP_PATH = "/mcp";
/** The header carrying an MCP session's id. */
const SESSION_HEADER = "mcp-session-id";
/** How much of a session id names its lane and its log lines: enough to tell sessions apart, not enough to reuse one. */
const SESSION_PREFIX_LENGTH = 8;
/** The wait an address is told to take when every session it holds is busy: one of them may end within it. */
const MCP_RETRY_AFTER_MS = 1_000;

export interface McpHttpOptions {
  /** A backend for one session's calls, on the given mailbox lane, with the scope of the token that opened it. */
  readonly backend: (lane: string, scope: AccessScope) => McpBackend;
  readonly allowScripts: boolean;
  /** `mcpMaxSessions`: past it, a new session ends the longest-idle one. */
  readonly maxSessions: number;
  /** `mcpMaxSessionsPerAddress`: past it, a new session ends the longest-idle one of the same address. */
  readonly maxSessionsPerAddress: number;
  /** `mcpSessionIdleMs`: a session without a request for this long ends. */
  readonly sessionIdleMs: number;
  /** The address a request counts under for `maxSessionsPerAddress`, or undefined when it is not counted (loopback). */
  readonly addressOf?: (req: IncomingMessage | undefined) => string | undefined;
  /** `mcpMaxImageBytes`. */
  readonly maxImageBytes: number;
  readonly log: Logger;
  /** Loads the SDK on the first session. @default {@link loadMcpSdk} */
  readonly loadSdk?: () => Promise<McpSdk>;
}

interface Session {
  readonly id: string;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly mcp: BridgeMcpServer;
  readonly backend: McpBackend;
  /** The scope of the token that opened it: a later request needs a token of that scope (or `full`). */
  readonly scope: AccessScope;
  /** The address it counts under, if counted. */
  readonly address: string | undefined;
  /** When a request of it last arrived or ended (`performance.now()`). */
  lastSeen: number;
  /** Its POSTs and DELETEs not answered to the end yet; a session with one is never idle. */
  busy: number;
}

/**
 * The `/mcp` endpoint: one transport and server per session, ended by the client's DELETE, by being idle for
 * `sessionIdleMs`, to make room for a new session, or by the bridge's close.
 */
export interface McpHttp {
  /**
   * Answers one request whose JSON body (if any) was already read; throws a `BridgeError` to refuse it. `peer` is
   * the Node request under it, to count sessions by address; `scope` what its token may do (a read-scoped session
   * offers only the tools that change nothing). @default scope "full"
   */
  handle(request: Request, body: unknown, peer?: IncomingMessage, scope?: AccessScope): Promise<Response>;
  /** `GET /status` `mcp`: sessions open, the caps, and how many ended idle, made room or were refused. */
  counts(): McpSessionCounts;
  close(): Promise<void>;
}

export interface McpSessionCounts {
  readonly open: number;
  readonly max: number;
  readonly maxPerAddress: number;
  /** Ended after `mcpSessionIdleMs` without a request. */
  readonly idleEnded: number;
  /** Ended to make room for a new session (past either cap). */
  readonly evicted: number;
  /** `initialize` refused because every session in the way was busy. */
  readonly refused: number;
}

/**
 * A response whose body calls `done` once it has been read to its end or cancelled: a tool call's answer streams
 * (SSE) after `handleRequest` returns, and its session is busy until then.
 */
function whenBodyEnds(response: Response, done: () => void): Response {
  const source = response.body;
  if (source === null) {
    done();
    return response;
  }
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    done();
  };
  const reader = source.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) {
          end();
          controller.close();
        } else controller.enqueue(next.value);
      } catch (error) {
        end();
        controller.error(error);
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

const isInitialize = (body: unknown): boolean =>
  (Array.isArray(body) ? body : [body]).some((message) => typeof message === "object" && message !== null && (message as { method?: unknown }).method === "initialize");

/**
 * Streamable HTTP sessions on the bridge. Access (token, Host, Origin) is checked by the route's guard like every
 * other route's, before a request gets here; the SDK loads on the first request only.
 */
export function createMcpHttp(options: McpHttpOptions): McpHttp {
  /** Open sessions, least recently used first (a request moves its session to the end). */
  const sessions = new Map<string, Session>();
  /** Sessions being set up (an `initialize` in flight): they count against the limits too. */
  let opening = 0;
  const openingBy = new Map<string, number>();
  let sweeper: NodeJS.Timeout | undefined;
  const tally = { idleEnded: 0, evicted: 0, refused: 0 };

  /** Ends a session: it leaves the table at once (its room is free), its server and backend close after. */
  const end = async (id: string, why = "ended by its client"): Promise<void> => {
    const session = sessions.get(id);
    if (session === undefined) return;
    sessions.delete(id);
    await session.mcp.close().catch(() => {});
    await session.backend.close().catch(() => {});
    options.log.info({ actor: `mcp:${id.slice(0, SESSION_PREFIX_LENGTH)}`, why }, "MCP session ended");
  };

  /** Ends the sessions idle for `sessionIdleMs`, then waits for the next one to be. */
  const sweep = (): void => {
    sweeper = undefined;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (const session of [...sessions.values()]) {
      if (session.busy > 0) continue;
      const deadline = session.lastSeen + options.sessionIdleMs;
      if (deadline <= now) {
        tally.idleEnded++;
        void end(session.id, `idle for ${options.sessionIdleMs} ms (limits.mcpSessionIdleMs)`);
      }
      else next = Math.min(next, deadline);
    }
    if (next !== Number.POSITIVE_INFINITY) arm(next - now);
  };
  /** A session went idle: its deadline is the latest, so a timer already set fires first and sets the next. */
  const arm = (ms = options.sessionIdleMs): void => {
    if (sweeper !== undefined) return;
    sweeper = setTimeout(sweep, Math.max(0, ms));
    sweeper.unref();
  };
  const touch = (session: Session): void => {
    session.lastSeen = performance.now();
    // Re-inserted: the table stays in order of use, so the longest-idle session is the first one not busy.
    sessions.delete(session.id);
    sessions.set(session.id, session);
  };
  const longestIdle = (of: (session: Session) => boolean): Session | undefined => {
    for (const session of sessions.values()) if (session.busy === 0 && of(session)) return session;
    return undefined;
  };
  const heldBy = (address: string): number => {
    let held = openingBy.get(address) ?? 0;
    for (const session of sessions.values()) if (session.address === address) held++;
    return held;
  };

  /**
   * Room for one more session: past its address's cap that address's longest-idle session ends, past the total cap
   * the longest-idle of all, so sessions opened and abandoned never lock others out. Refused only when every
   * session in the way is answering a request.
   */
  const makeRoom = (address: string | undefined): void => {
    if (address !== undefined && heldBy(address) >= options.maxSessionsPerAddress) {
      const victim = longestIdle((session) => session.address === address);
      if (victim === undefined) {
        tally.refused++;
        throw new BridgeError("TOO_MANY_REQUESTS", `This address already holds ${options.maxSessionsPerAddress} MCP sessions, all of them busy; end one (DELETE ${MCP_PATH}) first`, {
          details: { limit: "mcpMaxSessionsPerAddress", max: options.maxSessionsPerAddress, retryAfterMs: MCP_RETRY_AFTER_MS },
        });
      }
      tally.evicted++;
      void end(victim.id, `its address opened one more than limits.mcpMaxSessionsPerAddress (${options.maxSessionsPerAddress}) and it was the longest idle`);
    }
    if (sessions.size + opening >= options.maxSessions) {
      const victim = longestIdle(() => true);
      if (victim === undefined) {
        tally.refused++;
        throw new BridgeError("HOST_BUSY", `All ${options.maxSessions} MCP sessions are busy; try again shortly`, {
          details: { limit: "mcpMaxSessions", max: options.maxSessions, retryAfterMs: MCP_RETRY_AFTER_MS },
        });
      }
      tally.evicted++;
      void end(victim.id, `a session was opened past limits.mcpMaxSessions (${options.maxSessions}) and it was the longest idle`);
    }
  };

  const open = async (request: Request, body: unknown, peer: IncomingMessage | undefined, scope: AccessScope): Promise<Response> => {
    const address = options.addressOf?.(peer);
    makeRoom(address);
    opening++;
    if (address !== undefined) openingBy.set(address, (openingBy.get(address) ?? 0) + 1);
    try {
      const sdk = await (options.loadSdk ?? loadMcpSdk)();
      const id = randomUUID();
      const lane = `mcp:${id.slice(0, SESSION_PREFIX_LENGTH)}`;
      const backend = options.backend(lane, scope);
      const mcp = createMcpServer(sdk, backend, { allowScripts: options.allowScripts, maxImageBytes: options.maxImageBytes });
      const transport = new sdk.http.WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => id,
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, { id: sessionId, transport, mcp, backend, scope, address, lastSeen: performance.now(), busy: 0 });
          arm();
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
      if (address !== undefined) {
        const left = (openingBy.get(address) ?? 1) - 1;
        if (left > 0) openingBy.set(address, left);
        else openingBy.delete(address);
      }
    }
  };

  return {
    async handle(request, body, peer, scope = "full") {
      const id = request.headers.get(SESSION_HEADER);
      if (id === null) {
        if (request.method === "POST" && isInitialize(body)) return open(request, body, peer, scope);
        throw new BridgeError("BAD_REQUEST", `An MCP request needs the ${SESSION_HEADER} header of its session; a session starts with an initialize request`);
      }
      const session = sessions.get(id);
      if (session === undefined) throw new BridgeError("NOT_FOUND", "No MCP session has this id (it ended, or the bridge restarted): initialize a new one");
      // A read token may not drive a session a full token opened (its tools change documents).
      if (scope === "read" && session.scope !== "read") {
        throw new BridgeError("FORBIDDEN", "This MCP session was opened with the full token; a read token may use only sessions it opened", { details: { scope } });
      }
      touch(session);
      // A GET is the session's stream of notifications, open for as long as the client listens: it is not work.
      if (request.method === "GET") return session.transport.handleRequest(request);
      session.busy++;
      let settled = false;
      const settle = (): void => {
        if (settled) return;
        settled = true;
        session.busy--;
        if (!sessions.has(session.id)) return;
        touch(session);
        arm();
      };
      try {
        return whenBodyEnds(await session.transport.handleRequest(request, request.method === "POST" ? { parsedBody: body } : undefined), settle);
      } catch (error) {
        settle();
        throw error;
      }
    },
    counts: () => ({ open: sessions.size, max: options.maxSessions, maxPerAddress: options.maxSessionsPerAddress, ...tally }),
    async close() {
      clearTimeout(sweeper);
      sweeper = undefined;
      await Promise.all([...sessions.keys()].map((id) => end(id, "the bridge closed")));
    },
  };
}
