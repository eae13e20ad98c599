/*
 * The event log as an event-stream transport sees it: check the types a reader names, then follow the log for that
 * reader until it goes away or falls too far behind. The transport owns the connection (its headers, tickets, and the
 * bytes all streams may queue together); `./follow.ts` decides what reaches the reader, and when.
 */

/** What the streams of one bridge count together (`/metrics`, `/status`). */
export interface FollowCounts {
  /** Events written to readers. */
  delivered: number;
  /** State events dropped because a newer one of the same type replaced them while the reader was behind. */
  coalesced: number;
  /** Readers closed past their own caps (`sseHardBytes`, or `sseSoftBytes` for `sseSlowReaderMs`). */
  slowCloses: number;
}

/** One reader's stream, already past the access checks and the stream caps. */
export interface FollowRequest {
  readonly endpoint: string;
  /** The editor whose state events the stream follows (`?editor=`, checked); undefined: the first. */
  readonly editorId: string | undefined;
  /** The event types followed, checked with {@link EventsPort.types}. */
  readonly types: readonly string[];
  /** `?documentId=` and `?layerId=`: only events naming them pass (null: no filter). */
  readonly documentId: string | null;
  readonly layerId: string | null;
  /** Where a reconnecting reader left off (`Last-Event-ID`). */
  readonly lastEventId: string | undefined;
  readonly counts: FollowCounts;
}

/** Where a followed stream is written. */
export interface EventReader {
  /** Bytes written and not yet taken by the reader's socket. */
  queuedBytes(): number;
  /** Writes text that is not an event: the opening comment, heartbeats, a `lost` notice. */
  write(text: string): void;
  /** Writes one event's whole SSE message. */
  deliver(frame: Buffer): void;
  /** Ends the stream: the reader fell too far behind (it may reconnect with its last id). */
  close(): void;
}

/** The event log's one door for a transport. */
export interface EventsPort {
  /** The types a reader named, checked against what the endpoint produces: BAD_REQUEST naming the accepted ones. */
  types(endpoint: string, named: readonly string[]): string[];
  /** Replays from `lastEventId`, then follows the live events until the returned function is called. */
  follow(request: FollowRequest, reader: EventReader): () => void;
}
