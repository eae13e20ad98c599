import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
import { isIP, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { Limits } from "../limits.js";
import type { Logger } from "../logger.js";
import { isLoopbackHost } from "../loopback.js";
import { BridgeError, statusForError, toProtocolError, type ProtocolError } from "../protocol/index.js";

/*
 * Socket accounting for the bridge's one HTTP server (HTTP and WebSocket alike): a cap on open sockets with a
 * reserve for probes and the operator, a cap per remote address, and a deadline for sockets that never ask for
 * anything. Counting happens in the server's `connection` event so a refused socket is answered, not dropped
 * (Node's own `server.maxConnections` closes them without a word).
 */

/** What a refused client is told to wait before trying again (`Retry-After`, `details.retryAfterMs`). */
export const CONNECTION_RETRY_AFTER_MS = 1_000;

/** How long a socket refused on arrival may take to read its answer before it is destroyed. */
const REFUSED_LINGER_MS = 2_000;

/** Paths a socket inside the reserve may still ask for (GET or HEAD): probes and the operator's views. */
export const OPERATOR_PATHS: readonly string[] = ["/health", "/ready", "/status", "/metrics"];

/** The keyword of `trustProxy` that trusts every loopback peer. */
export const TRUST_LOOPBACK = "loopback";

export interface ConnectionOptions {
  /**
   * Peers whose `X-Forwarded-For` is believed: `"loopback"` for any loopback address, or exact IP addresses. From
   * such a peer the last address of the header (the one the proxy added) is counted per address instead of the
   * peer's own. @default none
   */
  trustProxy?: readonly string[];
  /** Count loopback addresses against `maxConnectionsPerAddress` too. @default false (loopback is exempt) */
  countLoopback?: boolean;
}

export interface ConnectionCounts {
  /** Sockets open now, HTTP and WebSocket. */
  open: number;
  max: number;
  reserve: number;
  /** Sockets answered 503 on arrival (past `maxConnections`). */
  refusedFull: number;
  /** Requests and upgrades answered 503 from a socket inside the reserve. */
  refusedReserve: number;
  /** Sockets or requests answered 429 for their address. */
  refusedPerAddress: number;
  /** Sockets closed for sending nothing within `idleConnectionMs`. */
  idleClosed: number;
  /** Silent sockets closed, oldest first, to make room for a new socket at the cap. */
  silentEvicted: number;
}

export interface ConnectionGate {
  /** The HTTP handler, answering first the requests a socket may not make (503 or 429, `Connection: close`). */
  requests(handler: RequestListener): RequestListener;
  /** For a WebSocket upgrade: true to go on; false once the socket has been answered with its refusal. */
  admitUpgrade(req: IncomingMessage, socket: Duplex): boolean;
  counts(): ConnectionCounts;
}

interface SocketState {
  /** Arrived inside the reserve: only the operator paths are served. */
  readonly reserveOnly: boolean;
  /** The peer is a trusted proxy: its requests are counted by the address they forward. */
  readonly trusted: boolean;
  /** The address this socket counts against, if any. */
  address: string | undefined;
  /** When it must have asked for something (`idleConnectionMs` after it arrived); 0 once it has. */
  idleDeadline: number;
  refused: boolean;
  /** Counted in `open` (until closed or evicted). */
  counted: boolean;
}

/** `::ffff:1.2.3.4` is `1.2.3.4`; everything lower-case. */
export function normalizeAddress(address: string): string {
  const lower = address.toLowerCase();
  return lower.startsWith("::ffff:") && isIP(lower.slice(7)) === 4 ? lower.slice(7) : lower;
}

/**
 * The address a proxy added to `X-Forwarded-For` (its last entry; earlier ones come from the client and prove
 * nothing), or undefined when the header is absent or that entry is not an IP address (`[v6]:port` and `v4:port`
 * are read as their address).
 */
export function forwardedAddress(header: string | string[] | undefined): string | undefined {
  const text = Array.isArray(header) ? header.join(",") : header;
  const last = text?.split(",").at(-1)?.trim();
  if (last === undefined || last === "") return undefined;
  const bare = /^\[([^\]]+)\](?::\d+)?$/.exec(last)?.[1] ?? (/^[\d.]+:\d+$/.test(last) ? last.slice(0, last.lastIndexOf(":")) : last);
  return isIP(bare) === 0 ? undefined : normalizeAddress(bare);
}

/**
 * The address a request counts against: its peer's, or, when the peer is a trusted proxy (`trusted`, as
 * `checkTrustProxy` returns it), the address the proxy added to `X-Forwarded-For`.
 */
export function requestAddress(req: IncomingMessage, trusted: readonly string[]): string {
  const peer = normalizeAddress(req.socket.remoteAddress ?? "unknown");
  const proxy = (trusted.includes(TRUST_LOOPBACK) && isLoopbackHost(peer)) || trusted.includes(peer);
  return (proxy ? forwardedAddress(req.headers["x-forwarded-for"]) : undefined) ?? peer;
}

/** `trustProxy` entries checked: `loopback` or IP addresses. */
export function checkTrustProxy(entries: readonly string[]): string[] {
  return entries.map((entry) => {
    const text = entry.trim().toLowerCase();
    if (text === TRUST_LOOPBACK) return text;
    const bare = text.replace(/^\[|\]$/g, "");
    if (isIP(bare) === 0) throw new BridgeError("BAD_REQUEST", `trustProxy expects "${TRUST_LOOPBACK}" or IP addresses, got "${entry}"`);
    return normalizeAddress(bare);
  });
}

/** The refusal as a whole HTTP/1.1 answer, for a socket no response object stands for. */
function rawAnswer(error: ProtocolError): string {
  const body = JSON.stringify(error);
  return (
    `HTTP/1.1 ${statusForError(error)} ${error.code}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Retry-After: ${Math.ceil(CONNECTION_RETRY_AFTER_MS / 1000)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * Checks the connection limits against each other (a reserve as large as the cap would leave no socket for
 * clients). @throws BridgeError `BAD_REQUEST` naming the limit
 */
export function checkConnectionLimits(limits: Limits): void {
  const positive = ["maxConnections", "maxConnectionsPerAddress", "idleConnectionMs", "httpHeadersTimeoutMs", "httpRequestTimeoutMs"] as const;
  for (const name of positive) {
    if (!(limits[name] > 0)) throw new BridgeError("BAD_REQUEST", `limit ${name} must be above 0, got ${limits[name]}`, { details: { limit: name } });
  }
  if (!(limits.connectionReserve >= 0 && limits.connectionReserve < limits.maxConnections)) {
    throw new BridgeError("BAD_REQUEST", `limit connectionReserve (${limits.connectionReserve}) must be below maxConnections (${limits.maxConnections})`, {
      details: { limit: "connectionReserve", max: limits.maxConnections - 1 },
    });
  }
  if (limits.httpHeadersTimeoutMs > limits.httpRequestTimeoutMs) {
    throw new BridgeError("BAD_REQUEST", `limit httpHeadersTimeoutMs (${limits.httpHeadersTimeoutMs}) must not exceed httpRequestTimeoutMs (${limits.httpRequestTimeoutMs})`, {
      details: { limit: "httpHeadersTimeoutMs", max: limits.httpRequestTimeoutMs },
    });
  }
}

/**
 * How often Node checks requests against `headersTimeout`/`requestTimeout` (its default, 30 s, would let a 20 s
 * deadline run to 50 s). Give it to `createServer({ connectionsCheckingInterval })`.
 */
export function connectionsCheckingInterval(limits: Limits): number {
  return Math.max(100, Math.min(5_000, Math.floor(limits.httpHeadersTimeoutMs / 4)));
}

/**
 * Counts the server's sockets and applies the connection limits: `maxConnections` with its `connectionReserve`,
 * `maxConnectionsPerAddress`, `idleConnectionMs`, and Node's `headersTimeout`/`requestTimeout` from
 * `httpHeadersTimeoutMs`/`httpRequestTimeoutMs`. Wire `requests()` as the server's request handler and
 * `admitUpgrade()` first in its upgrade handler.
 *
 * @throws BridgeError `BAD_REQUEST` when the limits contradict each other or `trustProxy` names no address.
 */
export function guardConnections(server: Server, limits: Limits, options: ConnectionOptions = {}, log?: Logger): ConnectionGate {
  checkConnectionLimits(limits);
  const trusted = checkTrustProxy(options.trustProxy ?? []);
  const trustLoopback = trusted.includes(TRUST_LOOPBACK);
  const isTrusted = (address: string): boolean => (trustLoopback && isLoopbackHost(address)) || trusted.includes(address);
  const counted = (address: string): boolean => options.countLoopback === true || !isLoopbackHost(address);
  server.headersTimeout = limits.httpHeadersTimeoutMs;
  server.requestTimeout = limits.httpRequestTimeoutMs;

  const states = new WeakMap<Socket, SocketState>();
  const perAddress = new Map<string, number>();
  let open = 0;
  let full = false;
  const tally = { refusedFull: 0, refusedReserve: 0, refusedPerAddress: 0, idleClosed: 0, silentEvicted: 0 };
  /**
   * Sockets that have sent no request or upgrade yet, oldest first: the first to go when the cap is reached, and
   * the ones the idle deadline closes. Their deadlines come in the same order, so one timer, set for the oldest's,
   * serves them all (a timer per socket cost every connection a timer made and cleared).
   */
  const silent = new Map<Socket, SocketState>();
  /** The idle timer is set (for the oldest silent socket's deadline). */
  let idleArmed = false;
  const closeIdle = (): void => {
    idleArmed = false;
    const now = performance.now();
    for (const [socket, state] of silent) {
      if (state.idleDeadline > now) {
        idleArmed = true;
        setTimeout(closeIdle, state.idleDeadline - now).unref();
        return;
      }
      silent.delete(socket);
      state.idleDeadline = 0;
      tally.idleClosed++;
      socket.destroy();
    }
  };

  const attach = (state: SocketState, address: string): void => {
    state.address = address;
    perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
  };
  const detach = (state: SocketState): void => {
    const address = state.address;
    if (address === undefined) return;
    state.address = undefined;
    const left = (perAddress.get(address) ?? 1) - 1;
    if (left > 0) perAddress.set(address, left);
    else perAddress.delete(address);
  };
  const perAddressError = (): BridgeError => {
    tally.refusedPerAddress++;
    return new BridgeError("TOO_MANY_REQUESTS", `This address already holds ${limits.maxConnectionsPerAddress} connections to the bridge`, {
      details: { limit: "maxConnectionsPerAddress", max: limits.maxConnectionsPerAddress, retryAfterMs: CONNECTION_RETRY_AFTER_MS },
    });
  };
  const busyError = (limit: "maxConnections" | "connectionReserve"): BridgeError =>
    new BridgeError(
      "HOST_BUSY",
      limit === "maxConnections"
        ? `The bridge already holds ${limits.maxConnections} connections`
        : `The bridge holds ${limits.maxConnections - limits.connectionReserve} connections; the rest are kept for ${OPERATOR_PATHS.join(", ")}`,
      { details: { limit, max: limits.maxConnections, reserve: limits.connectionReserve, retryAfterMs: CONNECTION_RETRY_AFTER_MS } },
    );
  /** Answers a socket that has no response object (on arrival, or an upgrade) and closes it. */
  const refuseSocket = (socket: Duplex, state: SocketState | undefined, error: BridgeError): void => {
    if (state !== undefined) state.refused = true;
    if (!socket.writable) return void socket.destroy();
    socket.end(rawAnswer(toProtocolError(error)));
    setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
  };

  /**
   * Counts a trusted proxy's socket under the address it forwards for this request (the peer's own without a
   * header); null when that address may not hold one more.
   */
  const attribute = (state: SocketState, req: IncomingMessage, peer: string): BridgeError | null => {
    if (!state.trusted) return null;
    const address = forwardedAddress(req.headers["x-forwarded-for"]) ?? peer;
    if (address === state.address) return null;
    detach(state);
    if (!counted(address)) return null;
    if ((perAddress.get(address) ?? 0) >= limits.maxConnectionsPerAddress) return perAddressError();
    attach(state, address);
    return null;
  };

  /** Why this request (or upgrade, which is never an operator path) may not go on, or null. */
  const refusalOf = (req: IncomingMessage, upgrade: boolean): BridgeError | null => {
    const socket = req.socket;
    const state = states.get(socket);
    if (state === undefined) return null;
    if (state.idleDeadline !== 0) {
      state.idleDeadline = 0;
      silent.delete(socket);
    }
    if (state.reserveOnly) {
      const path = (req.url ?? "/").split("?")[0]!;
      const operator = !upgrade && (req.method === "GET" || req.method === "HEAD") && OPERATOR_PATHS.includes(path);
      if (!operator) {
        tally.refusedReserve++;
        return busyError("connectionReserve");
      }
    }
    return attribute(state, req, normalizeAddress(socket.remoteAddress ?? ""));
  };

  /** Stops counting a socket (closed, or evicted and closing). */
  const release = (socket: Socket, state: SocketState): void => {
    if (state.idleDeadline !== 0) {
      state.idleDeadline = 0;
      silent.delete(socket);
    }
    detach(state);
    if (!state.counted) return;
    state.counted = false;
    open--;
    if (full && open < limits.maxConnections - limits.connectionReserve) {
      full = false;
      log?.info({ actor: "bridge", open }, "connections below the cap again");
    }
  };

  /** A socket's `close` listener: one function for every socket, which finds the socket's state by `this`. */
  function releaseOnClose(this: Socket): void {
    const state = states.get(this);
    if (state !== undefined) release(this, state);
  }

  server.on("connection", (socket: Socket) => {
    open++;
    if (open > limits.maxConnections) {
      // A socket that never said anything is the cheapest to lose: a flood of them cannot lock out a probe.
      const [oldest] = silent;
      if (oldest !== undefined) {
        tally.silentEvicted++;
        release(...oldest);
        oldest[0].destroy();
      }
    }
    const peer = normalizeAddress(socket.remoteAddress ?? "");
    const state: SocketState = {
      reserveOnly: open > limits.maxConnections - limits.connectionReserve,
      trusted: peer !== "" && isTrusted(peer),
      address: undefined,
      idleDeadline: 0,
      refused: false,
      counted: true,
    };
    states.set(socket, state);
    // `on`, not `once`: a socket closes once, and `once` would add a wrapper and a bound function per socket.
    socket.on("close", releaseOnClose);
    if (open > limits.maxConnections) {
      tally.refusedFull++;
      refuseSocket(socket, state, busyError("maxConnections"));
      return;
    }
    if (!state.trusted && peer !== "" && counted(peer)) {
      if ((perAddress.get(peer) ?? 0) >= limits.maxConnectionsPerAddress) {
        refuseSocket(socket, state, perAddressError());
        return;
      }
      attach(state, peer);
    }
    if (state.reserveOnly && !full) {
      // Said once per crossing, not per socket: a flood must not also flood the log.
      full = true;
      log?.warn({ actor: "bridge", open, max: limits.maxConnections, reserve: limits.connectionReserve }, "connections reached the cap less the reserve");
    }
    state.idleDeadline = performance.now() + limits.idleConnectionMs;
    silent.set(socket, state);
    if (!idleArmed) {
      idleArmed = true;
      setTimeout(closeIdle, limits.idleConnectionMs).unref();
    }
  });

  return {
    requests(handler) {
      return (req: IncomingMessage, res: ServerResponse) => {
        if (states.get(req.socket)?.refused === true) return; // answered on arrival; closing
        const refusal = refusalOf(req, false);
        if (refusal === null) return handler(req, res);
        const body = JSON.stringify(toProtocolError(refusal));
        res.writeHead(statusForError(toProtocolError(refusal)), {
          "content-type": "application/json; charset=utf-8",
          "content-length": Buffer.byteLength(body),
          "retry-after": String(Math.ceil(CONNECTION_RETRY_AFTER_MS / 1000)),
          connection: "close",
        });
        res.end(body);
      };
    },
    admitUpgrade(req, socket) {
      const state = states.get(req.socket);
      if (state?.refused === true) return false;
      const refusal = refusalOf(req, true);
      if (refusal === null) return true;
      refuseSocket(socket, state, refusal);
      return false;
    },
    counts: () => ({ open, max: limits.maxConnections, reserve: limits.connectionReserve, ...tally }),
  };
}
