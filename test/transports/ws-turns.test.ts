import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startBridge } from "../helpers/bridge.js";
import { encodeFrame, OPCODES, RawWsClient } from "../helpers/raw-ws.js";
import { ScriptedHost } from "../helpers/scripted-host.js";

const raws: RawWsClient[] = [];
const sockets: Socket[] = [];
afterEach(() => {
  for (const raw of raws.splice(0)) raw.socket.destroy();
  for (const socket of sockets.splice(0)) socket.destroy();
});

describe("a socket yields the thread every clientFramesPerTurn frames", () => {
  it("frames written at once past the share of a turn are all answered once, in order, whole, fragmented or not", async () => {
    const harness = await startBridge({ limits: { clientFramesPerTurn: 3 } });
    const port = Number(new URL(harness.bridge.url).port);
    const raw = await RawWsClient.open(port);
    raws.push(raw);
    await raw.until(() => raw.json().some((m) => m["type"] === "connected"));
    const frames: Buffer[] = [];
    for (let i = 1; i <= 40; i++) {
      const text = JSON.stringify(i % 2 === 0 ? { id: i, method: "getServerInfo" } : { id: i, method: "no:such-method", params: { pad: "y".repeat(i * 37) } });
      if (i % 7 === 0) {
        // A message in three fragments, so cuts fall between a message's frames too.
        const third = Math.ceil(text.length / 3);
        frames.push(encodeFrame(OPCODES.text, text.slice(0, third), { fin: false }));
        frames.push(encodeFrame(OPCODES.continuation, text.slice(third, 2 * third), { fin: false }));
        frames.push(encodeFrame(OPCODES.continuation, text.slice(2 * third)));
      } else frames.push(encodeFrame(OPCODES.text, text));
    }
    // One write: the bridge reads them together and must cut the read at frame boundaries.
    raw.write(Buffer.concat(frames));
    const answered = (): Array<Record<string, unknown>> => raw.json().filter((m) => typeof m["id"] === "number");
    await raw.until(() => answered().length >= 40);
    expect(answered().map((m) => m["id"])).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    for (const answer of answered()) {
      const id = answer["id"] as number;
      if (id % 2 === 0) expect(answer, JSON.stringify(answer)).toMatchObject({ ok: true, result: { name: "image-editor-bridge" } });
      else expect(answer).toMatchObject({ ok: false, error: { code: "UNKNOWN_METHOD" } });
    }
    expect(raw.closeCode).toBeUndefined();
  });

  it("frames that close the socket mid-read still let the rest of the read through: the peer's close frame ends it at once", { timeout: 15_000 }, async () => {
    // A scripted editor: the time bound is for the close (ws's own close timeout is 30 s), not for an editor's start.
    const harness = await startBridge({ host: new ScriptedHost(), limits: { clientFramesPerTurn: 3, maxMalformedFrames: 2 } });
    const port = Number(new URL(harness.bridge.url).port);
    // A client that answers nothing the bridge sends: only the close frame it wrote itself can end the handshake.
    const socket = connect(port, "127.0.0.1");
    sockets.push(socket);
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    let received = "";
    const upgraded = new Promise<void>((resolve) =>
      socket.on("data", (chunk: Buffer) => {
        received += chunk.toString("latin1");
        if (received.includes('"connected"')) resolve();
      }),
    );
    socket.write(`GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    await upgraded;
    // Two frames that are not JSON close the socket (1007) in the first turn; the client's own close frame comes
    // after the cut. Held back, it would leave the socket open until ws's close timeout (30 s).
    const frames = [encodeFrame(OPCODES.text, "not json"), encodeFrame(OPCODES.text, "not json either")];
    for (let i = 0; i < 6; i++) frames.push(encodeFrame(OPCODES.text, JSON.stringify({ id: i, method: "getServerInfo" })));
    const code = Buffer.alloc(2);
    code.writeUInt16BE(1000);
    frames.push(encodeFrame(OPCODES.close, code));
    socket.write(Buffer.concat(frames));
    await closed;
    // The bridge's close frame (FIN and opcode 8, the last thing it sent) said 1007.
    const bytes = Buffer.from(received, "latin1");
    const close = bytes.lastIndexOf(0x88);
    expect(close).toBeGreaterThan(-1);
    expect(bytes.readUInt16BE(close + 2)).toBe(1007);
  });
});
