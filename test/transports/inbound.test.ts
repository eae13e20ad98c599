import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import type { Bridge } from "../../src/bridge/bridge.js";
import { inboundCounts, type InboundCounts } from "../../src/transports/inbound.js";
import { startBridge } from "../helpers/bridge.js";
import { ScriptedHost } from "../helpers/scripted-host.js";
import { encodeFrame, OPCODES } from "../helpers/raw-ws.js";

const MiB = 1024 * 1024;

/**
 * A request frame of exactly `size` bytes of payload: a valid call padded with JSON whitespace, so the bridge must
 * receive and parse all of it, and answers it like any other call.
 */
function bigRequest(id: string, size: number): Buffer {
  const head = `{"id":"${id}","method":"getServerInfo"`;
  return Buffer.from(`${head}${" ".repeat(size - head.length - 1)}}`, "utf8");
}

/** A JSON body selecting a 1×1 rectangle, padded with whitespace to `size` bytes. */
function bigBody(size: number): Buffer {
  const head = '{"rect":{"x":0,"y":0,"width":1,"height":1}';
  return Buffer.from(`${head}${" ".repeat(size - head.length - 1)}}`, "utf8");
}

function counts(bridge: Bridge): InboundCounts {
  const now = inboundCounts(bridge.limits);
  if (now === undefined) throw new Error("the bridge has no inbound budget");
  return now;
}

/** Resolves once the bridge's inbound counts satisfy `condition` (checked every turn of the event loop, no sleeps). */
async function untilCounts(bridge: Bridge, condition: (c: InboundCounts) => boolean): Promise<InboundCounts> {
  for (;;) {
    const now = counts(bridge);
    if (condition(now)) return now;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** An upgraded socket that writes raw bytes and collects the text it is sent, from a chosen local address. */
class RawSocket {
  private text = "";
  private waiters: Array<() => void> = [];
  private constructor(readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      // Server frames here are small unmasked text frames: their payload bytes are what the tests look for.
      this.text += chunk.toString("latin1");
      for (const wake of this.waiters.splice(0)) wake();
    });
    socket.on("error", () => {});
  }

  static open(port: number, localAddress = "127.0.0.1"): Promise<RawSocket> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host: "127.0.0.1", localAddress });
      socket.once("error", reject);
      socket.once("connect", () => {
        const client = new RawSocket(socket);
        socket.write(
          `GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
        );
        client.until("\"type\":\"connected\"").then(() => resolve(client), reject);
      });
    });
  }

  write(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  /** Resolves once `needle` has been received. */
  async until(needle: string): Promise<void> {
    while (!this.text.includes(needle)) {
      if (this.socket.destroyed) throw new Error(`socket closed before "${needle}" arrived`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        this.socket.once("close", () => resolve());
      });
    }
  }
}

/** Writes the head of `frame` (its header and `first` payload bytes) now; returns the rest. */
function split(frame: Buffer, first: number): [Buffer, Buffer] {
  return [frame.subarray(0, first), frame.subarray(first)];
}

describe("inbound bytes in flight", () => {
  it("several clients' large frames at once never hold more than the cap; waiting sockets are not read; small calls and /health are not held up", async () => {
    const FRAME = 3 * MiB;
    const limits = { maxPayloadBytes: 4 * MiB, inboundBytesInFlight: 6 * MiB, inboundBytesPerAddress: 6 * MiB };
    const harness = await startBridge({ host: new ScriptedHost(), limits });
    const { bridge } = harness;
    const senders = await Promise.all(Array.from({ length: 6 }, () => RawSocket.open(bridge.port)));
    const small = await harness.connect();
    const rests: Buffer[] = [];
    const sendHead = (i: number): void => {
      const [head, rest] = split(encodeFrame(OPCODES.text, bigRequest(`big${i}`, FRAME)), 1000);
      senders[i]!.write(head);
      rests[i] = rest;
    };
    // Two frames fit the cap; then four more queue, in the order their headers arrive.
    sendHead(0);
    sendHead(1);
    await untilCounts(bridge, (c) => c.largeBytes === 2 * FRAME);
    for (let i = 2; i < 6; i++) {
      sendHead(i);
      await untilCounts(bridge, (c) => c.waiting === i - 1);
    }

    // Meanwhile a small client's calls and /health are answered at once.
    let smallBytes = 0;
    for (let i = 0; i < 5; i++) {
      smallBytes += JSON.stringify({ id: `s${i}`, method: "getServerInfo" }).length;
      expect((await small.send("getServerInfo", undefined, `s${i}`)).ok).toBe(true);
    }
    expect((await harness.http("/health")).status).toBe(200);
    expect(counts(bridge).waiting).toBe(4);

    // The waiting frames are sent whole, before the first admitted one ends; frame 1 keeps its room throughout.
    const answered: number[] = [];
    const answers = senders.map((sender, i) => sender.until(`"id":"big${i}","ok":true`).then(() => answered.push(i)));
    for (let i = 2; i < 6; i++) senders[i]!.write(rests[i]!);
    senders[0]!.write(rests[0]!);
    await Promise.all([answers[0], answers[2], answers[3], answers[4], answers[5]]);
    // Each waiting socket was read only once the one before it was parsed and gave its room back.
    expect(answered).toEqual([0, 2, 3, 4, 5]);
    senders[1]!.write(rests[1]!);
    await answers[1];
    const after = await untilCounts(bridge, (c) => c.bytes === 0);
    expect(after.waiting).toBe(0);
    expect(after.waited).toBe(4);
    // What was held at once: the two admitted frames, plus at most the small client's frames.
    expect(after.peakBytes).toBeGreaterThanOrEqual(2 * FRAME);
    expect(after.peakBytes).toBeLessThanOrEqual(limits.inboundBytesInFlight + smallBytes);
    for (const sender of senders) sender.socket.destroy();
  });

  it("one address holds at most its share; another address's large frame passes the first one's waiting frames", async () => {
    const FRAME = 3 * MiB;
    const limits = { maxPayloadBytes: 4 * MiB, inboundBytesInFlight: 12 * MiB, inboundBytesPerAddress: 6 * MiB };
    const harness = await startBridge({ host: new ScriptedHost(), limits });
    const { bridge } = harness;
    const greedy = await Promise.all(Array.from({ length: 4 }, () => RawSocket.open(bridge.port, "127.0.0.1")));
    const rests = greedy.map((sender, i) => {
      const [head, rest] = split(encodeFrame(OPCODES.text, bigRequest(`g${i}`, FRAME)), 1000);
      sender.write(head);
      return rest;
    });
    await untilCounts(bridge, (c) => c.largeBytes === 2 * FRAME && c.waiting === 2);

    const other = await RawSocket.open(bridge.port, "127.0.0.2");
    other.write(encodeFrame(OPCODES.text, bigRequest("other", FRAME)));
    await other.until('"id":"other","ok":true');
    // Answered while the first address still waits for its own share.
    expect(counts(bridge).waiting).toBe(2);

    for (const [i, sender] of greedy.entries()) sender.write(rests[i]!);
    await Promise.all(greedy.map((sender, i) => sender.until(`"id":"g${i}","ok":true`)));
    const after = await untilCounts(bridge, (c) => c.bytes === 0);
    expect(after.peakBytes).toBeLessThanOrEqual(3 * FRAME);
    for (const sender of [...greedy, other]) sender.socket.destroy();
  });

  it("a socket that closes gives its bytes back: a frame waiting behind it is read", async () => {
    const FRAME = 3 * MiB;
    const limits = { maxPayloadBytes: 4 * MiB, inboundBytesInFlight: 4 * MiB };
    const harness = await startBridge({ host: new ScriptedHost(), limits });
    const { bridge } = harness;
    const [holder, waiter, quitter] = await Promise.all([0, 1, 2].map(() => RawSocket.open(bridge.port)));
    holder!.write(split(encodeFrame(OPCODES.text, bigRequest("h", FRAME)), 1000)[0]);
    await untilCounts(bridge, (c) => c.largeBytes === FRAME);
    // A waiting socket that goes away leaves the queue.
    quitter!.write(split(encodeFrame(OPCODES.text, bigRequest("q", FRAME)), 1000)[0]);
    await untilCounts(bridge, (c) => c.waiting === 1);
    quitter!.socket.destroy();
    await untilCounts(bridge, (c) => c.waiting === 0);

    waiter!.write(encodeFrame(OPCODES.text, bigRequest("w", FRAME)));
    await untilCounts(bridge, (c) => c.waiting === 1);
    holder!.socket.destroy(); // mid-frame: its reservation is released on close
    await waiter!.until('"id":"w","ok":true');
    const after = await untilCounts(bridge, (c) => c.bytes === 0);
    expect(after.waiting).toBe(0);
    waiter!.socket.destroy();
  });

  it("large HTTP bodies wait for room before they are read, and are all answered; /health answers meanwhile", async () => {
    const BODY = 3 * MiB;
    const limits = { maxHttpBodyBytes: 4 * MiB, inboundBytesInFlight: 6 * MiB, inboundBytesPerAddress: 6 * MiB };
    const harness = await startBridge({ host: new ScriptedHost(), limits });
    const { bridge } = harness;
    const sockets = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<Socket>((resolve) => {
            const socket = connect(bridge.port, "127.0.0.1", () => resolve(socket));
          }),
      ),
    );
    const answered: number[] = [];
    const answers = sockets.map(
      (socket, i) =>
        new Promise<string>((resolve) => {
          let text = "";
          socket.on("data", (chunk: Buffer) => {
            text += chunk.toString("latin1");
          });
          socket.on("close", () => {
            answered.push(i);
            resolve(text);
          });
        }),
    );
    const body = bigBody(BODY);
    const sendHead = (i: number): void => {
      sockets[i]!.write(`POST /selection/set HTTP/1.1\r\nHost: 127.0.0.1:${bridge.port}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${BODY}\r\n\r\n`);
      sockets[i]!.write(body.subarray(0, 1000));
    };
    sendHead(0);
    sendHead(1);
    await untilCounts(bridge, (c) => c.largeBytes === 2 * BODY);
    sendHead(2);
    await untilCounts(bridge, (c) => c.waiting === 1);
    sendHead(3);
    const waiting = await untilCounts(bridge, (c) => c.waiting === 2);
    expect(waiting.bytes).toBe(2 * BODY);
    expect((await harness.http("/health")).status).toBe(200);

    // The waiting bodies are sent whole first; each is read only once an earlier body has been parsed.
    sockets[2]!.write(body.subarray(1000));
    sockets[3]!.write(body.subarray(1000));
    sockets[0]!.write(body.subarray(1000));
    await Promise.all([answers[0], answers[2], answers[3]]);
    expect(answered).toEqual([0, 2, 3]);
    sockets[1]!.write(body.subarray(1000));
    for (const answer of await Promise.all(answers)) expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    const after = await untilCounts(bridge, (c) => c.bytes === 0);
    expect(after.waited).toBe(2);
    expect(after.peakBytes).toBeLessThanOrEqual(limits.inboundBytesInFlight);
  });
});
