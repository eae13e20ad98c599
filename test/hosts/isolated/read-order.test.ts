import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSuiteBridge, type Harness } from "../../helpers/bridge.js";

/*
 * Reads of the isolated editor may be answered on the bridge's side from its last answer (the read cache), and a
 * call may start without entering the editor's queue when nothing waits there. Neither may ever answer a read with
 * the state from before a change the mailbox put ahead of it: these tests would see a stale selection.
 */

const rect = (i: number): { x: number; y: number; width: number; height: number } => ({ x: 10 + i, y: 20, width: 100 + (i % 7), height: 50 });

describe("reads of the editor follow the mailbox's order", () => {
  // One bridge with its editor in a process of its own (the default, with the read cache) for both tests.
  let harness: Harness & { close(): Promise<void> };
  beforeAll(async () => {
    harness = await startSuiteBridge();
  });
  afterAll(() => harness.close());

  it("another client's read after a change was answered sees the change, though it read the old state just before", async () => {
    const writer = await harness.connect();
    const reader = await harness.connect();
    for (let i = 0; i < 20; i++) {
      expect(await reader.call("selection:getArea")).toEqual(i === 0 ? null : rect(i - 1));
      await writer.call("selection:set", { rect: rect(i) });
      expect(await reader.call("selection:getArea")).toEqual(rect(i));
      expect(await (await harness.http("/selection/area")).json()).toEqual(rect(i));
    }
  });

  it("a repeated read with nothing queued is answered from what the bridge holds, without entering the editor's queue", async () => {
    const client = await harness.connect();
    const queued = async (): Promise<number> => {
      const text = await (await harness.http("/metrics")).text();
      const line = text.split("\n").find((l) => l.startsWith("bridge_editor_queue_wait_seconds_count"));
      return Number(line?.split(" ").at(-1) ?? 0);
    };
    await client.call("selection:set", { rect: rect(60) });
    await client.call("selection:getArea");
    const before = await queued();
    for (let i = 0; i < 5; i++) expect(await client.call("selection:getArea")).toEqual(rect(60));
    expect(await queued()).toBe(before);
    await client.call("selection:set", { rect: rect(61) });
    expect(await client.call("selection:getArea")).toEqual(rect(61));
    expect(await queued()).toBe(before + 2);
  });

  it("a read pipelined right behind a change on the same socket answers the changed state, every time", async () => {
    const client = await harness.connect();
    await client.call("selection:getArea"); // cached before the first change
    const answers: Array<Promise<unknown>> = [];
    // Fifteen pairs, sent back to back without waiting (within the client's share of the editor's queue): each read
    // queues behind the change before it in the client's lane.
    for (let i = 0; i < 15; i++) {
      answers.push(client.send("selection:set", { rect: rect(i + 30) }).then((frame) => frame.ok));
      answers.push(client.send("selection:getArea").then((frame) => frame.result));
    }
    const results = await Promise.all(answers);
    for (let i = 0; i < 15; i++) expect(results.slice(2 * i, 2 * i + 2)).toEqual([true, rect(i + 30)]);
  });
});
