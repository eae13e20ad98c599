import type { HostDocument } from "../../src/protocol/index.js";
import type { HostCallContext } from "../../src/hosts/host.js";
import { ScriptedHost } from "./scripted-host.js";

/** What the editor does with one `getDocument` call (what `document:current` runs). */
export type Fault =
  /** The editor's connection drops while the call runs; the call itself never settles. */
  | { readonly kind: "vanish" }
  /** Never answers and ignores the abort signal (a wedged editor). */
  | { readonly kind: "hang" }
  /** Ignores the deadline and answers right after the bridge gave up on the call. */
  | { readonly kind: "late" }
  /** Answers twice (resolve, resolve again, then reject) through a hand-made thenable. */
  | { readonly kind: "twice" }
  /** Answers with this value instead of a document. */
  | { readonly kind: "garbage"; readonly value: unknown }
  /** Throws this value synchronously (it need not be an Error). */
  | { readonly kind: "throw"; readonly value: unknown }
  /** Rejects with this value (it need not be an Error). */
  | { readonly kind: "reject"; readonly value: unknown };

/**
 * A {@link ScriptedHost} whose `getDocument` misbehaves as told: each call takes the next injected fault, and
 * answers normally once none are left. Everything else behaves like the scripted editor.
 */
export class FaultHost extends ScriptedHost {
  private readonly pending: Fault[] = [];
  /** How many faults have been played. */
  played = 0;

  /** Queues faults for the next `getDocument` calls, in order. */
  inject(...faults: Fault[]): void {
    this.pending.push(...faults);
  }

  /** Drops faults not played yet. */
  clear(): void {
    this.pending.length = 0;
  }

  override getDocument(ctx: HostCallContext, documentId: number | undefined): Promise<HostDocument> {
    const fault = this.pending.shift();
    if (fault === undefined) return super.getDocument(ctx, documentId);
    this.played++;
    switch (fault.kind) {
      case "vanish":
        queueMicrotask(() => this.lose("editor vanished mid-call"));
        return new Promise<never>(() => {});
      case "hang":
        return new Promise<never>(() => {});
      case "late":
        return new Promise((resolve) => {
          ctx.signal.addEventListener("abort", () => resolve(super.getDocument({ caller: ctx.caller, signal: new AbortController().signal }, documentId)), {
            once: true,
          });
        });
      case "twice": {
        const doc = super.getDocument(ctx, documentId);
        const thenable = {
          // biome-ignore lint/suspicious/noThenProperty: the fault is a thenable that calls back more than once
          then(onFulfilled: (value: unknown) => void, onRejected: (reason: unknown) => void): void {
            void doc.then((value) => {
              onFulfilled(value);
              onFulfilled({ ...value, name: "second answer" });
              onRejected(new Error("third answer"));
            });
          },
        };
        return thenable as unknown as Promise<HostDocument>;
      }
      case "garbage":
        return Promise.resolve(fault.value as HostDocument);
      case "throw":
        throw fault.value;
      case "reject":
        return Promise.reject(fault.value);
    }
  }
}
