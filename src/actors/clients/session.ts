/*
 * A logical client's session as a cluster of bridges keeps it, so that another bridge can resume the client.
 */

/** How far one editor's event stream was delivered: `[epoch, n]` of an `EventCursor`. */
export type CursorPosition = readonly [epoch: number, n: number];

/** A logical client's session as a cluster keeps it: what another bridge needs to resume it. */
export interface ClientSession {
  readonly endpoint: string;
  readonly name?: string;
  readonly editor?: string;
  readonly subscriptions: readonly string[];
  /** The last event `seq` given out. */
  readonly seq: number;
  /** How far each editor's events (`<editor> <type>`) were written to the client's socket. */
  readonly cursors: Readonly<Record<string, CursorPosition>>;
  readonly attached: boolean;
}

/** A session one bridge hands another: with the frames it kept for the client while detached. */
export interface HandedOverSession extends ClientSession {
  readonly frames: readonly string[];
  readonly lost: number;
}
