import type { Observable, Subscription } from "rxjs";
import type { SerializedEvent } from "../../methods/index.js";

/**
 * A plugin's listeners on main events (`ctx.bridge.on`): each event is parsed and handed over, a throw or rejection
 * is reported through `failed` (contained), and every listener ends at once when the plugin is disposed.
 */
export class MainListeners {
  private subs = new Set<Subscription>();

  constructor(
    private readonly streamOf: (type: string) => Observable<SerializedEvent> | undefined,
    private readonly failed: (error: unknown) => void,
  ) {}

  /** Listens to `type`; returns a function that stops listening. */
  add(type: string, listener: (data: unknown) => void): () => void {
    const stream = this.streamOf(type);
    if (stream === undefined) return () => {};
    const sub = stream.subscribe((event) => {
      try {
        const result = listener(JSON.parse(event.json)) as unknown;
        if (result instanceof Promise) result.catch((error: unknown) => this.failed(error));
      } catch (error) {
        this.failed(error);
      }
    });
    this.subs.add(sub);
    return () => {
      sub.unsubscribe();
      this.subs.delete(sub);
    };
  }

  clear(): void {
    for (const sub of this.subs) sub.unsubscribe();
    this.subs = new Set();
  }
}
