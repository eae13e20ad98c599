import { setup } from "xstate";

/**
 * Lifecycle of a logical client: `attached ⇄ detached → disposed`. A detached client
 * lives for the resume TTL, then is disposed; closing with 4000 disposes at once.
 */
export interface ClientMachineInput {
  resumeTtlMs: number;
  onDisposed: () => void;
}

export type ClientMachineEvent = { type: "ATTACH" } | { type: "DETACH" } | { type: "DISPOSE" };

export const clientMachine = setup({
  types: {
    input: {} as ClientMachineInput,
    context: {} as ClientMachineInput,
    events: {} as ClientMachineEvent,
  },
  delays: {
    resumeTtl: ({ context }) => context.resumeTtlMs,
  },
  actions: {
    notifyDisposed: ({ context }) => context.onDisposed(),
  },
}).createMachine({
  id: "client",
  initial: "attached",
  context: ({ input }) => input,
  states: {
    attached: { on: { DETACH: "detached", DISPOSE: "disposed" } },
    detached: {
      after: { resumeTtl: "disposed" },
      on: { ATTACH: "attached", DISPOSE: "disposed" },
    },
    disposed: { type: "final", entry: "notifyDisposed" },
  },
});
