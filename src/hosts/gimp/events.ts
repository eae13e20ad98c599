import { Observable, share } from "rxjs";
import type { Logger } from "../../logger.js";
import type { HostLayer, HostRect } from "../../protocol/index.js";
import type { PreviewEvent } from "../host.js";
import { asList, asNumber, type Sexp } from "./scheme.js";

/** What the poller reads from GIMP. */
export interface PollSources {
  readonly intervalMs: number;
  /** True while calls are queued or GIMP is away: a poll would only wait behind them. */
  busy(): boolean;
  /**
   * One call: `br-poll-current`, `(image dirty active-layer (selection bounds…) layer-count)` of the bridge's
   * active image, or `()` when no image is open.
   */
  poll(): Promise<Sexp>;
  activeLayers(imageId: number): Promise<HostLayer[]>;
  /** The active layer's preview (PNG, longest edge ≤ `PREVIEW_MAX_SIZE`), or `null` when no layer is active. */
  preview(imageId: number): Promise<PreviewEvent | null>;
  readonly log?: Logger | undefined;
}

interface Snapshot {
  readonly image: number | undefined;
  readonly active: number;
  readonly selection: string;
  readonly dirty: number;
  readonly layers: number;
}

type Listener = (snapshot: Snapshot, previous: Snapshot | undefined) => void;

/**
 * Events by polling (the 2.10 PDB has no notification hook): while at least one stream is subscribed, a
 * signature of the active image (dirty flag, active layer, selection bounds, layer count) is read every
 * `intervalMs` and compared in Node. Polling skips ticks while other calls are queued and stops with the last
 * subscriber.
 */
export class GimpEvents {
  private readonly listeners = new Set<Listener>();
  private timer: NodeJS.Timeout | undefined;
  private last: Snapshot | undefined;
  private polling = false;
  private readonly streams: ReadonlyMap<string, Observable<unknown>>;

  constructor(private readonly sources: PollSources) {
    this.streams = new Map<string, Observable<unknown>>([
      [
        "selection:changed",
        this.watch((now, before, emit) => {
          if (before && (now.image !== before.image || now.selection !== before.selection)) emit(parseSelection(now.selection));
        }),
      ],
      [
        "layer:selectionChange",
        this.watch((now, before, emit) => {
          if (!before || (now.image === before.image && now.active === before.active)) return;
          if (now.image === undefined) return emit(null);
          sources.activeLayers(now.image).then(emit, () => {});
        }),
      ],
      [
        "layer:previewChange",
        this.watch((now, before, emit) => {
          if (!before || now.image === undefined) return;
          const changed = now.image !== before.image || now.active !== before.active || now.dirty !== before.dirty || now.layers !== before.layers;
          if (changed) sources.preview(now.image).then(emit, () => {});
        }),
      ],
    ]);
  }

  /** The stream of one event type, or undefined for types GIMP never produces. */
  stream(type: string): Observable<unknown> | undefined {
    return this.streams.get(type);
  }

  /** Stops polling (GIMP went away or the host closes); subscribers stay and polling resumes on the next tick. */
  stopAll(): void {
    this.last = undefined;
  }

  private watch(react: (now: Snapshot, before: Snapshot | undefined, emit: (value: unknown) => void) => void): Observable<unknown> {
    return new Observable<unknown>((subscriber) => {
      const listener: Listener = (now, before) => react(now, before, (value) => subscriber.next(value));
      this.listeners.add(listener);
      // The first subscriber takes the baseline at once: its poll is queued before any call made after
      // subscribing, so a change right after `event:subscribe` is never folded into the baseline.
      if (this.listeners.size === 1) void this.tick(true).finally(() => this.schedule());
      else this.schedule();
      return () => {
        this.listeners.delete(listener);
        if (this.listeners.size === 0) {
          clearTimeout(this.timer);
          this.timer = undefined;
          this.last = undefined;
        }
      };
    }).pipe(share());
  }

  private schedule(): void {
    if (this.timer !== undefined || this.listeners.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.tick().finally(() => this.schedule());
    }, this.sources.intervalMs);
  }

  private async tick(baseline = false): Promise<void> {
    if (this.polling || (!baseline && this.sources.busy())) return;
    this.polling = true;
    try {
      const fields = asList(await this.sources.poll(), "poll");
      let snapshot: Snapshot = { image: undefined, active: -1, selection: "", dirty: 0, layers: 0 };
      if (fields.length > 0) {
        snapshot = {
          image: asNumber(fields[0], "image"),
          dirty: asNumber(fields[1], "dirty"),
          active: asNumber(fields[2], "active layer"),
          selection: JSON.stringify(fields[3]),
          layers: asNumber(fields[4], "layer count"),
        };
      }
      if (this.listeners.size === 0) return;
      const before = baseline ? undefined : this.last;
      this.last = snapshot;
      for (const listener of this.listeners) listener(snapshot, before);
    } catch (error) {
      this.sources.log?.debug({ actor: "host", editor: "gimp", err: String(error) }, "event poll failed");
    } finally {
      this.polling = false;
    }
  }
}

function parseSelection(signature: string): HostRect | null {
  const bounds = JSON.parse(signature || "[]") as number[];
  if (bounds.length < 4) return null;
  const [x1, y1, x2, y2] = bounds as [number, number, number, number];
  return { x: x1, y: y1, width: x2 - x1, height: y2 - y1 };
}
