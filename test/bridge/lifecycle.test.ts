import { describe, expect, it } from "vitest";
import { createActor, fromPromise, waitFor } from "xstate";
import { lifecycleMachine } from "../../src/bridge/lifecycle.machine.js";

/** A start or close sequence the test settles by hand, recording what ran. */
function gate() {
  let open!: () => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

function lifecycle() {
  const ran: string[] = [];
  const start = gate();
  const machine = lifecycleMachine.provide({
    actors: {
      start: fromPromise(async () => {
        ran.push("start");
        await start.promise;
      }),
      abandon: fromPromise(async () => {
        ran.push("abandon");
      }),
      close: fromPromise(async ({ input }) => {
        ran.push(`close ${input.reason} ${input.wasRunning ? "after running" : "before running"}`);
      }),
    },
    actions: { announce: () => void ran.push("announce") },
  });
  const actor = createActor(machine).start();
  const settled = () => waitFor(actor, (s) => s.status === "done");
  return { actor, ran, start, settled };
}

describe("the bridge's lifecycle machine", () => {
  it("starts, announces once running, and closes with the reason", async () => {
    const { actor, ran, start, settled } = lifecycle();
    actor.send({ type: "START" });
    expect(actor.getSnapshot().value).toBe("starting");
    start.open();
    await waitFor(actor, (s) => s.matches("running"));
    actor.send({ type: "CLOSE", reason: "host-close" });
    actor.send({ type: "CLOSE", reason: "process-exit" }); // a second close is the same close
    await settled();
    expect(ran).toEqual(["start", "announce", "close host-close after running"]);
  });

  it("holds a close that comes while starting until the start settles, and never announces", async () => {
    const { actor, ran, start, settled } = lifecycle();
    actor.send({ type: "START" });
    actor.send({ type: "CLOSE", reason: "host-close" });
    expect(actor.getSnapshot().value).toBe("starting");
    expect(ran).toEqual(["start"]);
    start.open();
    await settled();
    expect(ran).toEqual(["start", "close host-close before running"]);
  });

  it("abandons a failed start and keeps its error", async () => {
    const { actor, ran, start, settled } = lifecycle();
    actor.send({ type: "START" });
    start.fail(new Error("port taken"));
    const done = await settled();
    expect(ran).toEqual(["start", "abandon"]);
    expect((done.context.startError as Error).message).toBe("port taken");
  });

  it("runs the close sequence for a bridge closed before it started", async () => {
    const { actor, ran, settled } = lifecycle();
    actor.send({ type: "CLOSE", reason: "process-exit" });
    await settled();
    expect(ran).toEqual(["close process-exit before running"]);
  });
});
