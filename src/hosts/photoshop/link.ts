import type { Observable } from "rxjs";
import type { HostBounds } from "../../protocol/index.js";
import type { Pixmap } from "./pixmap.js";

/** Pixels asked of Photoshop: one layer by id, or the document composite when `layerId` is absent. */
export interface PixmapRequest {
  readonly documentId: number;
  readonly layerId?: number | undefined;
  /** Uniform scale factor Photoshop applies before sending (≤ 1). */
  readonly scale: number;
  /** Longest edge Photoshop may send. */
  readonly maxDimension: number;
}

export interface PixmapReply {
  /** Where the pixels sit in the document (from the bounds JSON, not the pixel size). */
  readonly bounds: HostBounds;
  readonly pixmap: Pixmap;
}

/**
 * The way to Photoshop: a Remote Connections socket (standalone bridge) or generator-core's own connection (the
 * Generator plugin). The adapter speaks only to this, so both setups share every operation.
 */
export interface PhotoshopLink {
  /** Connects; resolves with Photoshop's version (`"26.1.0"`). */
  open(): Promise<string>;
  close(): Promise<void>;
  /** Emits once per lost connection after `open()` resolved. */
  readonly lost$: Observable<Error>;
  /**
   * Runs ExtendScript and resolves with the text of its first JAVASCRIPT reply; a type-1 reply rejects with
   * `JSX_FAILED`, the signal's abort with a retryable `HOST_BUSY`, a lost connection with `HOST_UNAVAILABLE`.
   */
  evaluate(script: string, signal: AbortSignal): Promise<string>;
  /** Layer or document pixels, decoded. */
  pixmap(request: PixmapRequest, signal: AbortSignal): Promise<PixmapReply>;
  /** One Photoshop event's data texts; subscribes in Photoshop while observed, re-subscribes after reconnects. */
  event(name: string): Observable<string>;
}
