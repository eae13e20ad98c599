/*
 * Limits of the Photoshop host, against its known failure modes, each with the reason it exists. All of
 * them can be overridden through `createPhotoshopHost({ limits })`.
 */

const MiB = 1024 * 1024;

export const PHOTOSHOP_LIMITS = {
  /** Largest frame accepted from Photoshop; a bigger length field is a protocol error (guards memory). */
  maxFrameBytes: 512 * MiB,
  /** Longest pixmap edge requested; Photoshop silently downsizes past its own 10000 anyway. */
  maxPixmapEdge: 8_192,
  /** Pixmap requests in flight at once; each may hold hundreds of MB while it arrives. */
  maxPixmapsInFlight: 1,
  /**
   * Script requests in flight at once (as many more may wait); past that calls fail with HOST_BUSY (retryable)
   * instead of piling up behind a Photoshop that stopped answering.
   */
  maxScriptsInFlight: 4,
  /** Time to establish the TCP connection and the first exchange. */
  connectTimeoutMs: 5_000,
  /** Idle time after which a keep-alive is sent. */
  keepAliveIdleMs: 10_000,
  /** How long a keep-alive may go unanswered before the connection counts as lost. */
  keepAliveTimeoutMs: 10_000,
  /** Debounce of derived events built from noisy `imageChanged` bursts. */
  eventDebounceMs: 50,
  /** Deadline of the re-queries behind derived events (they run outside the bridge's mailbox). */
  eventQueryTimeoutMs: 10_000,
  /**
   * How long after a bridge change of a document Photoshop's own change events for it are taken as that change's
   * echo rather than someone else's edit (they count towards the document's revision otherwise).
   */
  editEchoMs: 500,
  /** Largest script `jsx:run`/`jsx:execute` send, in bytes (one frame per script). */
  maxScriptChars: 1_000_000,
} as const;

export type PhotoshopLimits = { -readonly [K in keyof typeof PHOTOSHOP_LIMITS]: number };

export function resolvePhotoshopLimits(overrides: Partial<PhotoshopLimits> = {}): PhotoshopLimits {
  return { ...PHOTOSHOP_LIMITS, ...overrides };
}
