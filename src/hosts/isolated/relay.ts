import { Observable, Subject } from "rxjs";
import type { ParentMessage } from "./protocol.js";

/**
 * The editor's event streams on the bridge's side. Reference counting stays here: the editor process is asked to
 * `subscribe` to a type when its first subscriber comes and to `unsubscribe` when its last one goes, so it only
 * renders previews (and sends anything) while someone listens. A fresh process is subscribed again to every type
 * still listened to ({@link EventRelay.resubscribe}).
 */
export class EventRelay {
  private readonly subjects = new Map<string, Subject<unknown>>();
  private readonly counts = new Map<string, number>();

  /** `send` delivers to the running editor process, and drops the message while none is ready. */
  constructor(private readonly send: (message: ParentMessage) => void) {}

  /** The stream of one event type; subscribing to it subscribes the editor. */
  stream(type: string): Observable<unknown> {
    return new Observable<unknown>((subscriber) => {
      const subscription = this.subject(type).subscribe(subscriber);
      const count = (this.counts.get(type) ?? 0) + 1;
      this.counts.set(type, count);
      if (count === 1) this.send({ kind: "subscribe", type });
      return () => {
        subscription.unsubscribe();
        const left = (this.counts.get(type) ?? 1) - 1;
        if (left > 0) {
          this.counts.set(type, left);
          return;
        }
        this.counts.delete(type);
        this.send({ kind: "unsubscribe", type });
      };
    });
  }

  /** An event from the editor process. */
  deliver(type: string, data: unknown): void {
    this.subjects.get(type)?.next(data);
  }

  /** A fresh editor process is ready: subscribe it to every type someone listens to. */
  resubscribe(): void {
    for (const type of this.counts.keys()) this.send({ kind: "subscribe", type });
  }

  private subject(type: string): Subject<unknown> {
    let subject = this.subjects.get(type);
    if (subject === undefined) {
      subject = new Subject<unknown>();
      this.subjects.set(type, subject);
    }
    return subject;
  }
}
