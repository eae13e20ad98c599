import { setup } from "xstate";

/**
 * The bridge (root actor): `idle → starting → running → closing → closed`. It makes `start()` and `close()` safe
 * to call twice and tells transports whether new work is still accepted.
 */
export type BridgeEvent = { type: "START" } | { type: "STARTED" } | { type: "FAILED" } | { type: "CLOSE" } | { type: "CLOSED" };

export const bridgeMachine = setup({
  types: { events: {} as BridgeEvent },
}).createMachine({
  id: "bridge",
  initial: "idle",
  states: {
    idle: { on: { START: "starting", CLOSE: "closed" } },
    starting: { on: { STARTED: "running", FAILED: "closed", CLOSE: "closing" } },
    running: { on: { CLOSE: "closing" } },
    closing: { on: { CLOSED: "closed" } },
    closed: { type: "final" },
  },
});
