import { Subject, type Observable } from "rxjs";
import type { SerializedEvent } from "../methods/index.js";

/** Plugin-local event types; they may not start with `#` (the bridge's lifecycle events). */
export const PLUGIN_EVENT_PATTERN = /^[A-Za-z0-9_.:/-]{1,128}$/;

/** Events the bridge sends on a supervised plugin's endpoint; plugin code may not declare or emit them. */
export const PLUGIN_LIFECYCLE_EVENTS = ["plugin:restarted", "plugin:failed"] as const;

/**
 * A plugin endpoint's own event types and their streams. A hot reload hands them to the new instance
 * (`adopt`), so subscribers keep receiving across the swap.
 */
export class LocalEvents {
  private readonly types = new Set<string>();
  private streams = new Map<string, Subject<SerializedEvent>>();

  constructor(private readonly mainTypes: () => readonly string[]) {}

  /** Why a plugin may not declare or emit this type, or null when it may. */
  problem(type: unknown): string | null {
    if (typeof type !== "string" || !PLUGIN_EVENT_PATTERN.test(type)) {
      return `event type ${JSON.stringify(type)} must match ${PLUGIN_EVENT_PATTERN.source}`;
    }
    if (this.mainTypes().includes(type)) return `event type "${type}" is a main event of the bridge`;
    if ((PLUGIN_LIFECYCLE_EVENTS as readonly string[]).includes(type)) return `event type "${type}" is the bridge's (supervision)`;
    return null;
  }

  declare(type: string): void {
    this.types.add(type);
  }

  list(): string[] {
    return [...this.types];
  }

  /** Sends to the type's subscribers, if any. */
  send(type: string, data: unknown): void {
    this.streams.get(type)?.next({ type, json: JSON.stringify(data ?? null) });
  }

  /** The stream of a known type, or undefined when it was never declared or sent. */
  stream(type: string): Observable<SerializedEvent> | undefined {
    if (!this.types.has(type)) return undefined;
    let subject = this.streams.get(type);
    if (subject === undefined) {
      subject = new Subject<SerializedEvent>();
      this.streams.set(type, subject);
    }
    return subject.asObservable();
  }

  /** Takes over another instance's types and streams; that one then completes nothing it handed over. */
  adopt(previous: LocalEvents): void {
    for (const type of previous.types) this.types.add(type);
    for (const [type, subject] of previous.streams) this.streams.set(type, subject);
    previous.streams = new Map();
  }

  /** Ends every stream (the plugin is disposed). */
  complete(): void {
    for (const subject of this.streams.values()) subject.complete();
    this.streams.clear();
  }
}
