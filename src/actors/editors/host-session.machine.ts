import { assign, fromPromise, setup } from "xstate";
import type { HostInfo } from "../../hosts/host.js";

/**
 * Connection state of the editor: `disconnected → connecting → ready → closing → closed`, with
 * `backoff` between failed attempts and `degraded` while calls are slow. The mailbox lives beside the actor in
 * `HostSession` as plain code: per-call work never goes through the actor (whether the editor is busy is derived
 * from the running calls when asked).
 */
export interface HostSessionInput {
  connect: () => Promise<HostInfo>;
  close: () => Promise<void>;
  reconnectInitialMs: number;
  reconnectMaxMs: number;
}

export interface HostSessionContext extends HostSessionInput {
  retryDelayMs: number;
  attempts: number;
  hostVersion: string | undefined;
  lastError: string | undefined;
  /** Set while recent calls are slower than `slowCallMs` (the `degraded` condition). */
  degraded: boolean;
}

export type HostSessionEvent =
  | { type: "CONNECT" }
  | { type: "LOST"; error: string }
  | { type: "SLOW" }
  | { type: "FAST" }
  | { type: "CLOSE" };

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export const hostSessionMachine = setup({
  types: {
    input: {} as HostSessionInput,
    context: {} as HostSessionContext,
    events: {} as HostSessionEvent,
  },
  actors: {
    connectHost: fromPromise<HostInfo, { connect: () => Promise<HostInfo> }>(({ input }) => input.connect()),
    closeHost: fromPromise<void, { close: () => Promise<void> }>(({ input }) => input.close()),
  },
  delays: {
    retryDelay: ({ context }) => context.retryDelayMs,
  },
  actions: {
    markSlow: assign({ degraded: true }),
    markFast: assign({ degraded: false }),
  },
}).createMachine({
  id: "host",
  initial: "disconnected",
  context: ({ input }) => ({
    ...input,
    retryDelayMs: input.reconnectInitialMs,
    attempts: 0,
    hostVersion: undefined,
    lastError: undefined,
    degraded: false,
  }),
  on: { SLOW: { actions: "markSlow" }, FAST: { actions: "markFast" } },
  states: {
    disconnected: { on: { CONNECT: "connecting", CLOSE: "closing" } },
    connecting: {
      entry: assign({ attempts: ({ context }) => context.attempts + 1 }),
      invoke: {
        src: "connectHost",
        input: ({ context }) => ({ connect: context.connect }),
        onDone: {
          target: "ready",
          actions: assign({
            hostVersion: ({ event }) => event.output.hostVersion,
            retryDelayMs: ({ context }) => context.reconnectInitialMs,
            attempts: 0,
            lastError: undefined,
          }),
        },
        onError: { target: "backoff", actions: assign({ lastError: ({ event }) => errorText(event.error) }) },
      },
      on: { CLOSE: "closing" },
    },
    backoff: {
      after: {
        retryDelay: {
          target: "connecting",
          actions: assign({
            retryDelayMs: ({ context }) => Math.min(context.retryDelayMs * 2, context.reconnectMaxMs),
          }),
        },
      },
      on: { CLOSE: "closing" },
    },
    ready: {
      on: {
        LOST: { target: "backoff", actions: assign({ lastError: ({ event }) => event.error, degraded: false }) },
        CLOSE: "closing",
      },
    },
    closing: {
      invoke: {
        src: "closeHost",
        input: ({ context }) => ({ close: context.close }),
        onDone: "closed",
        onError: "closed",
      },
    },
    closed: { type: "final" },
  },
});
