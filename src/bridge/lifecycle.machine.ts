import { assign, fromPromise, setup } from "xstate";
import type { ClosingReason } from "../protocol/index.js";

/**
 * The bridge (root actor): `idle → starting → running → closing → closed`, the machine running the start and close
 * sequences itself (`lifecycleMachine.provide`, from `lifecycle.ts`).
 *
 * - `starting` invokes `start`. A failed start invokes `abandon` (undo what started) and ends `closed` with the
 *   error kept for `start()` to throw. A `CLOSE` while starting is held until the start settles, so the close
 *   sequence never runs beside a half-done start.
 * - `running` is the only state in which transports accept new work; entering it invokes `announce` (`#ready`).
 * - `closing` invokes `close` with the reason, once: a second `CLOSE` is ignored.
 * - A `CLOSE` before any start still runs the close sequence, which finds little to close: parts made by
 *   `createBridge` (an editor pool's processes, say) are released either way.
 */
export type LifecycleEvent = { type: "START" } | { type: "CLOSE"; reason: ClosingReason };

export interface LifecycleContext {
  /** The reason of the first `CLOSE`, held while a start is still running. */
  closeReason: ClosingReason | undefined;
  /** Whether the bridge was running when it began to close (only then is `#closing` emitted). */
  wasRunning: boolean;
  /** Why the start failed: thrown by `start()`. */
  startError: unknown;
}

export interface CloseInput {
  readonly reason: ClosingReason;
  readonly wasRunning: boolean;
}

export const lifecycleMachine = setup({
  types: { events: {} as LifecycleEvent, context: {} as LifecycleContext },
  actors: {
    start: fromPromise<void>(() => Promise.reject(new Error("no start sequence provided"))),
    abandon: fromPromise<void>(async () => {}),
    close: fromPromise<void, CloseInput>(async () => {}),
  },
  actions: {
    announce: () => {},
    closeFailed: (_, _params: { error: unknown }) => {},
  },
  guards: {
    closeRequested: ({ context }) => context.closeReason !== undefined,
  },
}).createMachine({
  id: "bridge",
  initial: "idle",
  context: { closeReason: undefined, wasRunning: false, startError: undefined },
  states: {
    idle: {
      on: {
        START: "starting",
        CLOSE: { target: "closing", actions: assign({ closeReason: ({ event }) => event.reason }) },
      },
    },
    starting: {
      on: { CLOSE: { guard: ({ context }) => context.closeReason === undefined, actions: assign({ closeReason: ({ event }) => event.reason }) } },
      invoke: {
        src: "start",
        onDone: [{ guard: "closeRequested", target: "closing" }, { target: "running" }],
        onError: { target: "abandoning", actions: assign({ startError: ({ event }) => event.error }) },
      },
    },
    abandoning: {
      invoke: { src: "abandon", onDone: "closed", onError: "closed" },
    },
    running: {
      entry: "announce",
      on: { CLOSE: { target: "closing", actions: assign({ closeReason: ({ event }) => event.reason, wasRunning: true }) } },
    },
    closing: {
      invoke: {
        src: "close",
        input: ({ context }) => ({ reason: context.closeReason ?? "process-exit", wasRunning: context.wasRunning }),
        onDone: "closed",
        onError: { target: "closed", actions: { type: "closeFailed", params: ({ event }) => ({ error: event.error }) } },
      },
    },
    closed: { type: "final" },
  },
});
