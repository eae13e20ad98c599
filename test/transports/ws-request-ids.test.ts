import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { LARGE_IMAGE_BYTES } from "../../src/methods/index.js";
import { isRequest, isResponse, MAX_REQUEST_ID_LENGTH, parseFrame } from "../../src/protocol/index.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { OPCODES, RawWsClient } from "../helpers/raw-ws.js";
import { ScriptedHost } from "../helpers/scripted-host.js";

type Frame = Record<string, unknown>;

/** Opens a raw socket to `/ws` and waits for the `connected` event, as the README's snippet does. */
async function open(port: number): Promise<RawWsClient> {
  const ws = await RawWsClient.open(port, "/ws");
  await ws.until(() => ws.json().some((f) => f["type"] === "connected"));
  return ws;
}

/** Sends one frame's text and resolves with the text of the answer whose `id` is `id` (or the nth error event). */
async function answerText(ws: RawWsClient, text: string, id: unknown): Promise<string> {
  const before = ws.messages.length;
  ws.sendText(text);
  const find = (): string | undefined =>
    ws.messages
      .slice(before)
      .filter((m) => m.opcode === OPCODES.text)
      .map((m) => m.data.toString("utf8"))
      .find((t) => {
        const frame = JSON.parse(t) as Frame;
        return id === undefined ? frame["type"] === "error" : "id" in frame && frame["id"] === id;
      });
  await ws.until(() => find() !== undefined || ws.closeCode !== undefined);
  return find()!;
}

describe("request ids over raw WebSocket", () => {
  it("a numeric id (the JSON-RPC habit) is answered with the same number, not a string", async () => {
    const harness = await startOnSharedEditor();
    const ws = await open(harness.bridge.port);
    // The README's raw-frames line, sent literally.
    const text = await answerText(ws, JSON.stringify({ id: 1, method: "getServerInfo" }), 1);
    expect(text.startsWith('{"id":1,"ok":true,')).toBe(true);
    expect(JSON.parse(text)).toMatchObject({ id: 1, ok: true, result: { name: "image-editor-bridge" } });
  });

  it("zero, negative and large safe integers are echoed exactly; a string id stays a string", async () => {
    const harness = await startOnSharedEditor();
    const ws = await open(harness.bridge.port);
    for (const id of [0, -42, Number.MAX_SAFE_INTEGER, "7"]) {
      const frame = JSON.parse(await answerText(ws, JSON.stringify({ id, method: "selection:getArea" }), id)) as Frame;
      expect(frame).toMatchObject({ id, ok: true });
      expect(typeof frame["id"]).toBe(typeof id);
    }
  });

  it('the numeric id 1 and the string id "1" are different requests, each answered with its own id', async () => {
    const harness = await startOnSharedEditor();
    const ws = await open(harness.bridge.port);
    ws.sendText(JSON.stringify({ id: 1, method: "getServerInfo" }));
    ws.sendText(JSON.stringify({ id: "1", method: "no:such" }));
    const answers = (): Frame[] => ws.json().filter((f) => "ok" in f);
    await ws.until(() => answers().length === 2);
    expect(answers().find((f) => f["id"] === 1)).toMatchObject({ ok: true });
    expect(answers().find((f) => f["id"] === "1")).toMatchObject({ ok: false, error: { code: "UNKNOWN_METHOD" } });
  });

  it("a failure keeps the numeric id on the frame, and error.requestId carries it as text", async () => {
    const harness = await startOnSharedEditor();
    const ws = await open(harness.bridge.port);
    const frame = JSON.parse(await answerText(ws, JSON.stringify({ id: 9, method: "document:curent" }), 9)) as Frame;
    expect(frame).toMatchObject({ id: 9, ok: false, error: { code: "UNKNOWN_METHOD", requestId: "9", method: "document:curent" } });
  });

  it("a malformed request with a numeric id is answered on that id", async () => {
    const harness = await startOnSharedEditor();
    const ws = await open(harness.bridge.port);
    const frame = JSON.parse(await answerText(ws, JSON.stringify({ id: 3, method: "" }), 3)) as Frame;
    expect(frame).toMatchObject({ id: 3, ok: false, error: { code: "BAD_REQUEST", requestId: "3" } });
  });

  it("a large image answer, serialized in slices, carries the numeric id", async () => {
    const host = new ScriptedHost();
    const bytes = randomBytes(LARGE_IMAGE_BYTES + 1);
    host.exportDocumentImage = async () => ({ bytes, format: "png", width: 64, height: 48, bounds: { left: 0, top: 0, right: 64, bottom: 48 } });
    const harness = await startOnSharedEditor({ host });
    const ws = await open(harness.bridge.port);
    const text = await answerText(ws, JSON.stringify({ id: 12, method: "image:exportDocument" }), 12);
    expect(text.startsWith('{"id":12,"ok":true,"result":')).toBe(true);
    const frame = JSON.parse(text) as { result: { data: string } };
    expect(Buffer.from(frame.result.data.split(",")[1]!, "base64").equals(bytes)).toBe(true);
  });

  it.each([
    ["a fraction", 1.5],
    ["an integer past 2^53", 2 ** 53],
    ["an empty string", ""],
    ["an over-long string", "x".repeat(MAX_REQUEST_ID_LENGTH + 1)],
    ["a boolean", true],
  ])("an id that is %s is refused with an error event naming the accepted forms", async (_kind, id) => {
    const harness = await startOnSharedEditor();
    const ws = await open(harness.bridge.port);
    const frame = JSON.parse(await answerText(ws, JSON.stringify({ id, method: "getServerInfo" }), undefined)) as Frame;
    expect(frame).toMatchObject({ type: "error", data: { code: "BAD_REQUEST" } });
    expect((frame["data"] as { message: string }).message).toContain("a string of 1–256 characters or a safe integer");
  });
});

describe("the protocol helpers", () => {
  it("parseFrame, isRequest and isResponse accept numeric ids as the bridge does", () => {
    expect(parseFrame('{"id":1,"method":"getServerInfo"}')).toEqual({ id: 1, method: "getServerInfo" });
    expect(isRequest({ id: 0, method: "getServerInfo" })).toBe(true);
    expect(isRequest({ id: 1.5, method: "getServerInfo" })).toBe(false);
    expect(isResponse({ id: 1, ok: true, result: null })).toBe(true);
    expect(() => parseFrame('{"id":1.5,"method":"x"}')).toThrow(/not a request/);
  });
});
