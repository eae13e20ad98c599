/**
 * Longest edge of a layer preview, in pixels: `layer:getCurrentPreview` and `image:getPreview` unless the caller
 * asks otherwise, and every `layer:previewChange` event (≤ 300 px by default).
 */
export const PREVIEW_MAX_SIZE = 300;

/**
 * Close codes of the root and plugin endpoints, for servers and clients alike. Codes 4000–4999 are
 * the application's own; the 1xxx codes are the WebSocket standard's.
 */
export const CLOSE_CODES = {
  /** Sent by a client: dispose my logical client now instead of keeping it for resume. */
  DISPOSE: 4000,
  /** The plugin endpoint does not exist or failed to load. */
  PLUGIN_UNAVAILABLE: 4004,
  /** The socket fell behind by more than `outboundHardBytes`; the logical client stays resumable. */
  SLOW_CONSUMER: 4008,
  /** Another socket resumed this logical client. */
  TAKEN_OVER: 4009,
  /** An operator closed the socket (`server:disconnectClient`); the logical client stays resumable. */
  DISCONNECTED: 4010,
  /** `?resume=<id>&takeover=0` named a client another socket holds; that socket was left alone. */
  CLIENT_ATTACHED: 4409,
  /** An operator disposed the logical client (`server:disconnectClient` with `evict`): there is nothing to resume. */
  EVICTED: 4410,
  /** The bridge is shutting down. */
  GOING_AWAY: 1001,
  /** Too many frames that were not JSON. */
  INVALID_DATA: 1007,
  /**
   * The client kept sending frames past its rate (`clientFramesPerSecond`) after being answered TOO_MANY_REQUESTS
   * `clientFrameAbuseRejections` times within `clientFrameAbuseWindowMs`. The logical client stays resumable.
   */
  POLICY_VIOLATION: 1008,
  /**
   * A text message over `maxTextFrameBytes` (or any message over `maxPayloadBytes`): refused from its header, before
   * it is read. Large images go as binary parts.
   */
  MESSAGE_TOO_BIG: 1009,
  /** A hook failed while accepting the connection. */
  INTERNAL: 1011,
} as const;

/**
 * Prefix of the WebSocket subprotocol that carries the access token (`bearer.<token>`): browsers cannot set
 * headers on a WebSocket.
 */
export const BEARER_PROTOCOL_PREFIX = "bearer.";

/**
 * What a token lets its holder do. `full` (`--token`): everything. `read` (`--read-token`): the methods that change
 * nothing (see the bridge's SECURITY.md), subscriptions, event streams, `/status` and `/metrics`; anything else answers
 * `FORBIDDEN`. A bridge without a token gives every caller `full`.
 */
export const ACCESS_SCOPES = ["full", "read"] as const;
export type AccessScope = (typeof ACCESS_SCOPES)[number];

/** The subprotocol clients offer beside the token, so the bridge echoes this name rather than the token. */
export const BRIDGE_SUBPROTOCOL = "image-editor-bridge";

/** Longest display name (`?name=`) a client may give: room for a program and a host name; keeps lists small. */
export const MAX_CLIENT_NAME_LENGTH = 64;

/** The event type that stands for every other (`event:subscribe {type: "*"}`, an event stream without `?type=`). */
export const EVERY_EVENT = "*";
