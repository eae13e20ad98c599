import type { Logger } from "../../logger.js";

/** How to run or reach GIMP (`--editor gimp`). */
export interface GimpConnectOptions {
  /** The GIMP console binary the bridge starts and supervises. */
  binary: string;
  /** `host:port` of a Script-Fu server already running; the bridge then starts no GIMP of its own. */
  attach: string | undefined;
}

/** Options of `createGimpHost`. */
export interface GimpHostOptions extends GimpConnectOptions {
  logger?: Logger | undefined;
  /**
   * Deadline of one Script-Fu call. GIMP has no server-side timeout and one stuck call blocks every client, so a
   * call past it (or abandoned by the bridge's own deadline) restarts a supervised GIMP.
   * @default DEFAULT_GIMP_CALL_TIMEOUT_MS (120 s)
   */
  callTimeoutMs?: number | undefined;
  /** How long a started GIMP may take to open its Script-Fu port. @default DEFAULT_GIMP_START_TIMEOUT_MS */
  startTimeoutMs?: number | undefined;
  /** Event poll period while a client subscribes. @default DEFAULT_POLL_INTERVAL_MS */
  pollIntervalMs?: number | undefined;
  /**
   * Close all images and build the sample document (tests, demos): at every `connect()` of a GIMP the bridge
   * starts, and at the first `connect()` only of an attached one, whose images a reconnect keeps. Destroys unsaved
   * work in an attached GIMP, hence off by default.
   * `"empty"` only closes every image (a second editor of a test pool).
   * @default false
   */
  sample?: boolean | "empty" | undefined;
  /**
   * Recovery copies of the images calls changed (XCF, in the supervised GIMP's private temporary folder), so that
   * a GIMP that is killed or crashes comes back with them under their ids. Off when attached. `false` turns them off.
   * @default DEFAULT_LIMITS.editorRecoveryIntervalMs, editorRecoverySettleMs, editorRecoveryMaxBytes
   */
  recovery?: { readonly intervalMs?: number; readonly settleMs?: number; readonly maxBytes?: number } | false | undefined;
  /**
   * Largest document or layer (width × height) an edit may make: an edit past it is refused as `PAYLOAD_TOO_LARGE`
   * before GIMP starts on it (a 16 000 px resize holds GIMP for a minute). The bridge's `maxDocumentPixels`.
   * @default DEFAULT_LIMITS.maxDocumentPixels
   */
  maxDocumentPixels?: number | undefined;
  /**
   * Largest file GIMP is given to open: the bridge reads it whole (to learn what it holds, and to stage it for GIMP).
   * @default the bridge's `maxOpenFileBytes`, else DEFAULT_MAX_OPEN_FILE_BYTES
   */
  maxSourceBytes?: number | undefined;
}
