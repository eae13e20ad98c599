import { EVERY_EVENT } from "../../protocol/constants.js";
import { BridgeError, CLIENT_ERROR_CODES } from "../errors.js";
import type { EventMeta, LocalEventName, LocalEvents } from "../types.js";
import { LocalNotifier } from "./notifier.js";
import { SubscriptionTable, type SubscriptionWire } from "./subscriptions.js";

/** Any listener a connection takes: a bridge event's `(data, meta)` or a local `$`-notification's `(data)`. */
export type AnyListener = (...args: never[]) => void;

/**
 * A connection's listeners: bridge events, reference-counted onto the wire by a {@link SubscriptionTable}, and the
 * local `$`-notifications. A listener that throws is the app's bug: it is reported on `$error`, or thrown
 * asynchronously when nobody listens there, and never stops the other listeners.
 */
export class Listeners {
  readonly subscriptions: SubscriptionTable;
  private readonly local = new LocalNotifier();

  /** `refusedError` turns a refused subscription into the error `$error` reports. */
  constructor(wire: Omit<SubscriptionWire, "refused">, refusedError: (type: string, error: unknown) => BridgeError) {
    this.subscriptions = new SubscriptionTable({ ...wire, refused: (type, error) => this.emitLocal("$error", refusedError(type, error)) });
  }

  /**
   * @throws BridgeError `BAD_REQUEST` for `"*"`: the bridge delivers each event under its own type, so a listener of
   * `"*"` would never be called; listen to each type (raw `event:subscribe {types: ["*"]}` frames are for other clients).
   */
  add(type: string, listener: AnyListener, once: boolean): void {
    if (type === EVERY_EVENT) {
      throw new BridgeError("BAD_REQUEST", 'Listeners are per event type: "*" is not one (add a listener for each type you want)', { details: { type } });
    }
    if (type.startsWith("$")) this.local.add(type, listener as (data: unknown) => void, once);
    else this.subscriptions.add(type, listener as (data: unknown, meta: EventMeta) => void, once);
  }

  /** Removes one registration of a listener; the last one of a bridge event unsubscribes on the wire. */
  remove(type: string, listener: AnyListener): void {
    if (type.startsWith("$")) this.local.remove(type, listener as (data: unknown) => void);
    else this.subscriptions.remove(type, listener as (data: unknown, meta: EventMeta) => void);
  }

  /** Hands a bridge event to its listeners. */
  /**
   * Adds a listener of a bridge event and resolves once the bridge confirmed the subscription; when it refused, the
   * listener is removed again and the refusal rejects. Resolves with an async remover.
   */
  async addConfirmed(type: string, listener: AnyListener): Promise<() => Promise<void>> {
    this.add(type, listener, false);
    try {
      await this.subscriptions.settled(type);
    } catch (error) {
      this.remove(type, listener);
      throw error;
    }
    return async () => {
      this.remove(type, listener);
      await this.subscriptions.settled(type).catch(() => undefined);
    };
  }

  dispatch(type: string, data: unknown, meta: EventMeta): void {
    this.subscriptions.dispatch(type, data, meta, (error) => this.failed(type, error));
  }

  emitLocal<K extends LocalEventName>(type: K, data: LocalEvents[K]): void {
    this.local.emit(type, data, (error) => {
      if (type === "$error") {
        // An `$error` listener that throws has nowhere left to report to.
        queueMicrotask(() => {
          throw error;
        });
      } else {
        this.failed(type, error);
      }
    });
  }

  private failed(type: string, error: unknown): void {
    if (!this.local.has("$error")) {
      queueMicrotask(() => {
        throw error;
      });
      return;
    }
    this.emitLocal(
      "$error",
      new BridgeError(CLIENT_ERROR_CODES.LISTENER_FAILED, `A listener of ${type} threw: ${(error as Error)?.message ?? error}`, {
        cause: error,
        details: { type },
      }),
    );
  }
}
