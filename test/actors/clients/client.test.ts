import { Subject } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { LogicalClient } from "../../../src/actors/clients/client.js";
import { ReplayBudget } from "../../../src/actors/clients/replay-budget.js";
import { CLOSE_CODES } from "../../../src/protocol/index.js";
import type { ClientSocket } from "../../../src/actors/clients/port.js";
import type { SerializedEvent } from "../../../src/methods/index.js";
import { resolveLimits } from "../../../src/limits.js";

/** A socket whose backlog the test controls, recording what the client writes to it. */
class FakeSocket implements ClientSocket {
  readonly sent: string[] = [];
  closed: { code: number; reason: string } | undefined;
  bufferedAmount = 0;
  readonly binary = false;
  private waiters: Array<() => void> = [];
  send(text: string): void {
    this.sent.push(text);
    for (const resolve of this.waiters.splice(0)) resolve();
  }
  sendBinary(): void {
    throw new Error("a socket that did not negotiate binary never gets a binary message");
  }
  close(code: number, reason: string): void {
    this.closed = { code, reason };
  }
  /** Resolves when the next frame is written. */
  nextWrite(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

const limits = resolveLimits({ outboundSoftBytes: 100, outboundHardBytes: 1000, replayBufferEvents: 3 });
const clients: LogicalClient[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.dispose();
});

function makeClient(socket: ClientSocket): LogicalClient {
  const client = new LogicalClient("c1", "root", socket, limits, () => {});
  clients.push(client);
  return client;
}

const event = (type: string, data: unknown): SerializedEvent => ({ type, json: JSON.stringify(data) });

describe("a logical client's outbound policy", () => {
  it("coalesces state events to the latest value while the socket is backed up", async () => {
    const socket = new FakeSocket();
    const client = makeClient(socket);
    const stream = new Subject<SerializedEvent>();
    client.subscribe("selection:changed", stream);
    socket.bufferedAmount = 500; // past soft, below hard
    for (let x = 0; x < 10; x++) stream.next(event("selection:changed", { x }));
    expect(socket.sent).toHaveLength(0);
    socket.bufferedAmount = 0;
    await socket.nextWrite();
    expect(socket.sent.map((f) => JSON.parse(f))).toEqual([{ type: "selection:changed", seq: 1, data: { x: 9 } }]);
  });

  it("keeps coalesced state events for resume when the socket goes away before they were sent", () => {
    const socket = new FakeSocket();
    const client = makeClient(socket);
    socket.bufferedAmount = 500;
    client.deliverEvent(event("selection:changed", { x: 1 }));
    client.detach(socket);
    expect(socket.sent).toHaveLength(0);
    const batch = client.attach(new FakeSocket());
    expect(batch.frames.map((f) => JSON.parse(String(f)))).toEqual([{ type: "selection:changed", seq: 1, data: { x: 1 } }]);
  });

  it("does not coalesce other events", () => {
    const socket = new FakeSocket();
    const client = makeClient(socket);
    socket.bufferedAmount = 500;
    client.deliverEvent(event("custom:thing", 1));
    client.deliverEvent(event("custom:thing", 2));
    expect(socket.sent.map((f) => JSON.parse(f).data)).toEqual([1, 2]);
  });

  it("closes a socket past the hard cap with 4008 and keeps what it missed for resume", () => {
    const socket = new FakeSocket();
    const client = makeClient(socket);
    socket.bufferedAmount = 5000;
    client.deliverEvent(event("custom:thing", 1));
    expect(socket.closed).toEqual({ code: CLOSE_CODES.SLOW_CONSUMER, reason: "slow consumer" });
    expect(client.state).toBe("detached");
    client.deliverEvent(event("custom:thing", 2));
    const fresh = new FakeSocket();
    const batch = client.attach(fresh);
    expect(batch.frames.map((f) => JSON.parse(String(f)).data)).toEqual([1, 2]);
    expect(client.state).toBe("attached");
  });

  it("bounds the replay buffer and counts what it dropped", () => {
    const socket = new FakeSocket();
    const client = makeClient(socket);
    client.detach(socket);
    for (let i = 1; i <= 5; i++) client.deliverEvent(event("custom:thing", i));
    const batch = client.attach(new FakeSocket());
    expect(batch.lost).toBe(2);
    expect(batch.frames.map((f) => JSON.parse(String(f)).seq)).toEqual([3, 4, 5]);
  });

  it("keeps one copy of an event owed to many detached clients, and replays to each the frame its socket would have had", () => {
    const MiB = 1024 * 1024;
    // Room for one 1 MiB frame per client, 200 MiB in all: only the copies, not the caps, can tell the two apart.
    const roomy = resolveLimits({ replayBufferBytes: 2 * MiB, replayTotalBytes: 256 * MiB });
    const budget = new ReplayBudget(roomy.replayTotalBytes);
    const detached = Array.from({ length: 200 }, (_, i) => {
      const socket = new FakeSocket();
      const client = new LogicalClient(`d${i}`, "root", socket, roomy, () => {}, undefined, undefined, budget);
      clients.push(client);
      // Some clients had an event before, so their seqs differ.
      if (i % 2 === 1) client.deliverEvent(event("custom:thing", i));
      client.detach(socket);
      return client;
    });
    const preview = event("layer:previewChange", { layerId: 3, data: "x".repeat(MiB) });
    const before = process.memoryUsage().arrayBuffers;
    for (const client of detached) client.deliverEvent(preview);
    const grew = process.memoryUsage().arrayBuffers - before;
    // One copy of the event's JSON (1 MiB); a copy per client held 200 MiB.
    expect(grew, `${(grew / MiB).toFixed(1)} MiB held for 200 detached clients of one 1 MiB event`).toBeLessThan(8 * MiB);
    expect(budget.used).toBeGreaterThan(200 * MiB);

    for (const i of [0, 1]) {
      const batch = detached[i]!.attach(new FakeSocket());
      expect(batch.lost).toBe(0);
      expect(JSON.parse(String(batch.frames.at(-1)))).toEqual({ type: "layer:previewChange", seq: i + 1, data: { layerId: 3, data: "x".repeat(MiB) } });
    }
  });

  it("delivers nothing after it is disposed", () => {
    const socket = new FakeSocket();
    const client = makeClient(socket);
    const stream = new Subject<SerializedEvent>();
    client.subscribe("selection:changed", stream);
    client.dispose();
    stream.next(event("selection:changed", null));
    client.deliverResponse('{"id":"1","ok":true,"result":null}');
    expect(socket.sent).toHaveLength(0);
    expect(stream.observed).toBe(false);
  });
});
