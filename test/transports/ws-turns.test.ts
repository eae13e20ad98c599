import { afterEach, describe, expect, it } from "vitest";
import { startBridge } from "../helpers/bridge.js";
import { encodeFrame, OPCODES, RawWsClient } from "../helpers/raw-ws.js";

const raws: RawWsClient[] = [];
afterEach(() => {
  for (const raw of raws.splice(0)) raw.socket.destroy();
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
});
