import type { BackoffOptions } from "./_internal/backoff.js";
import type { FetchLike, WebSocketConstructor } from "./types.js";

/** Default deadline of one request: above the bridge's own 120 s deadline for exports, so its TIMEOUT comes first. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 135_000;
/** How long opening a socket and receiving the `connected` handshake may take. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** How long `close()` waits for the closing handshake before it resolves anyway. */
export const DEFAULT_CLOSE_TIMEOUT_MS = 2_000;
/** Requests held while the socket is away; past it new ones fail with TOO_MANY_REQUESTS (bounds memory). */
export const DEFAULT_MAX_QUEUED_REQUESTS = 1_000;
/** Requests sent and unanswered at once; matches the bridge's per-client limit so it never answers 429. */
export const DEFAULT_MAX_IN_FLIGHT = 64;

/**
 * Times a request the bridge refused for the client's frame rate (TOO_MANY_REQUESTS, `clientFramesPerSecond`) is
 * sent again. Safe for any method: the bridge refuses such a frame before dispatching it. A few, so a bridge that
 * stays saturated still surfaces its refusal instead of holding requests until their deadline.
 */
export const DEFAULT_RATE_LIMIT_RETRIES = 3;

export interface ReconnectOptions extends BackoffOptions {
  /** Attempts in a row before giving up (then pending requests fail with CONNECTION_LOST). */
  maxAttempts: number;
}

/** Reconnect schedule: 250 ms doubling to 10 s, half of each delay random, never giving up. */
export const DEFAULT_RECONNECT: Readonly<ReconnectOptions> = {
  initialDelayMs: 250,
  maxDelayMs: 10_000,
  jitter: 0.5,
  maxAttempts: Number.POSITIVE_INFINITY,
};

// The wire's constants, from the zod-free part of the protocol (the client must not load zod).

export interface ConnectionOptions {
  /** The bridge: `http://127.0.0.1:7700`, or a WebSocket URL such as `ws://127.0.0.1:7700/ws`. */
  url: string;
  /** Connect to the plugin endpoint `/ws/{pluginId}` instead of the root endpoint. */
  pluginId?: string;
  /** Access token, sent as the `bearer.<token>` subprotocol (and as `Authorization` on HTTP helpers). */
  token?: string;
  /**
   * A display name for this client, sent as `?name=` on every connect and reconnect. `server:clients` and the
   * bridge's logs show it beside the client id's 8-character prefix, which is all they show of the id. At most
   * {@link MAX_CLIENT_NAME_LENGTH} printable characters (no control, format or line-separator characters);
   * anything else throws a `TypeError` here.
   *
   * @example
   * new Connection({ url: "http://127.0.0.1:7700", WebSocket, name: "thumbnailer@build-7" });
   */
  name?: string;
  /**
   * The WebSocket class. Node 20 has no global one: pass `WebSocket` from the `ws` package.
   * @default globalThis.WebSocket
   */
  WebSocket?: WebSocketConstructor;
  /** For `status()`, `plugins()`, `pluginHealth()`. @default globalThis.fetch */
  fetch?: FetchLike;
  /** @default DEFAULT_REQUEST_TIMEOUT_MS */
  requestTimeoutMs?: number;
  /** @default DEFAULT_CONNECT_TIMEOUT_MS */
  connectTimeoutMs?: number;
  /** Reconnect with backoff after a dropped socket, resuming the logical client; `false` to end instead. */
  reconnect?: boolean | Partial<ReconnectOptions>;
  /** @default DEFAULT_MAX_QUEUED_REQUESTS */
  maxQueuedRequests?: number;
  /** @default DEFAULT_MAX_IN_FLIGHT */
  maxInFlight?: number;
  /**
   * How many times a request refused for the client's frame rate is sent again. The bridge names a wait
   * (`retryAfterMs`); the connection then sends nothing until it has passed, so the requests after it do not
   * spend the bridge's patience too (a client that keeps flooding is closed with 1008). The request's
   * `timeoutMs` still bounds the whole wait. `0` hands the refusal to the caller at once, with its
   * `retryAfterMs`.
   * @default DEFAULT_RATE_LIMIT_RETRIES
   * @example
   * new Connection({ url, WebSocket, rateLimitRetries: 0 }); // handle TOO_MANY_REQUESTS yourself
   */
  rateLimitRetries?: number;
  /**
   * Ask for binary messages (`?binary=1`): images come as raw bytes after their answer instead of base64 data URIs
   * (a third smaller, no encoding on either side), and bytes passed as a param (`layer:importImage`'s `image`)
   * travel as a binary message. `false` keeps every frame text; image results are `BridgeImage`s either way.
   * @default true
   */
  binary?: boolean;
  /** Random source for the reconnect jitter (tests). @default Math.random */
  random?: () => number;
}

export type ConnectionState = "connecting" | "open" | "reconnecting" | "closed";
