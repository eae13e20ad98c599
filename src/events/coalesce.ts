/** How often held state events are offered again while their reader is behind. */
export const COALESCE_FLUSH_MS = 25;

/**
 * The state events (`STATE_EVENTS`: only the latest value of each matters) held for one reader that is behind:
 * the latest of a type replaces the one held before, and everything held goes out at once when `ready()` says
 * the reader caught up (asked every `COALESCE_FLUSH_MS`, or when its owner offers), or when its owner drains it.
 * WebSocket clients and event streams both hold their state events here, so both coalesce alike.
 */
export class StateCoalescer<E> {
  private held: Map<string, E> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ready: () => boolean,
    private readonly send: (events: E[]) => void,
  ) {}

  /** Whether anything is held. */
  get holding(): boolean {
    return this.held !== undefined;
  }

  /** Holds `event` as the latest of `type`; answers true when it replaced one (an event coalesced away). */
  hold(type: string, event: E): boolean {
    this.held ??= new Map();
    const replaced = this.held.has(type);
    this.held.set(type, event);
    this.timer ??= setInterval(() => this.offer(), COALESCE_FLUSH_MS);
    return replaced;
  }

  /** Sends what is held if the reader is ready for it. */
  offer(): void {
    if (this.held !== undefined && this.ready()) this.drain();
  }

  /** Sends what is held now, ready or not (in the order the types were first held). */
  drain(): void {
    const held = this.held;
    this.stop();
    if (held !== undefined) this.send([...held.values()]);
  }

  /** Forgets what is held and stops asking. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.held = undefined;
  }
}
