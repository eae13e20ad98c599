import { describe, expect, it } from "vitest";
import { messageCount, sendFrame } from "../../../src/actors/clients/frames.js";
import type { ClientSocket, OutboundFrame } from "../../../src/actors/clients/port.js";
import { ReplayBuffer } from "../../../src/actors/clients/replay.js";
import { ReplayBudget } from "../../../src/actors/clients/replay-budget.js";
import { BinaryImageResponse, WireImage, withDataUris, withImages } from "../../../src/methods/index.js";
import { decodeBinaryFrame, MAX_BINARY_PARTS } from "../../../src/protocol/index.js";

/*
 * The binary answer of a result that holds several images (`template:render`'s variants), as one frame: its JSON,
 * its parts, how it is written to a socket, and how a replay buffer keeps or drops it (every part or none).
 */

const BOUNDS = { left: 0, top: 0, right: 2, bottom: 1 };

function image(fill: number, length: number): WireImage {
  return new WireImage({ bytes: new Uint8Array(length).fill(fill), format: "png", width: 2, height: 1, bounds: BOUNDS });
}

type Written = { text: string } | { header: Uint8Array; payload: Uint8Array };

function recordingSocket(binary: boolean): ClientSocket & { written: Written[] } {
  const written: Written[] = [];
  return {
    written,
    binary,
    bufferedAmount: 0,
    send: (text) => written.push({ text: String(text) }),
    sendBinary: (header, payload) => written.push({ header, payload }),
    close: () => {},
  };
}

/** What a written message is: an event's type, `answer`, or `part n` of request `job`. */
function label(written: Written): string {
  if ("text" in written) return (JSON.parse(written.text) as { type?: string }).type ?? "answer";
  const decoded = decodeBinaryFrame(Buffer.concat([written.header, written.payload]));
  return typeof decoded === "string" ? decoded : `part ${decoded.index} of ${decoded.requestId}`;
}

function templateResult(): { variants: unknown[] } {
  return withImages({
    variants: [
      { id: "a", ok: true, image: image(1, 3) },
      { id: "bad", ok: false, error: { code: "LAYER_NOT_FOUND" } },
      { id: "b", ok: true, image: image(2, 5) },
      { id: "c", ok: true, image: image(3, 7) },
    ],
  });
}

describe("binary answers with several images", () => {
  it("names each image as part n in document order and writes the JSON, then parts 0..n-1, payloads not copied", () => {
    const result = templateResult();
    const answer = BinaryImageResponse.of("job", result)!;
    const json = JSON.parse(answer.json) as { id: string; ok: boolean; result: { variants: Array<{ image?: { data: unknown } }> } };
    expect(json).toMatchObject({ id: "job", ok: true });
    expect(json.result.variants.map((v) => v.image?.data)).toEqual([
      { binary: 0, mime: "image/png", bytes: 3 },
      undefined,
      { binary: 1, mime: "image/png", bytes: 5 },
      { binary: 2, mime: "image/png", bytes: 7 },
    ]);
    expect(json.result.variants[2]).toEqual({ image: { data: { binary: 1, mime: "image/png", bytes: 5 }, format: "png", width: 2, height: 1, bounds: BOUNDS }, id: "b", ok: true });

    const socket = recordingSocket(true);
    expect(sendFrame(socket, answer)).toBe(4);
    expect(messageCount(socket, [answer, "{}"])).toBe(5);
    expect(socket.written[0]).toEqual({ text: answer.json });
    const images = [1, 2, 3].map((n) => (result.variants[[0, 2, 3][n - 1]!] as { image: WireImage }).image.image.bytes);
    for (const [n, written] of socket.written.slice(1).entries()) {
      const { header, payload } = written as { header: Uint8Array; payload: Uint8Array };
      expect(payload).toBe(images[n]); // the editor's buffer itself
      const decoded = decodeBinaryFrame(Buffer.concat([header, payload]));
      expect(decoded).toMatchObject({ requestId: "job", index: n });
    }
    expect(answer.byteLength).toBe(Buffer.byteLength(answer.json) + socket.written.slice(1).reduce((sum, w) => sum + (w as { header: Uint8Array }).header.byteLength, 0) + 15);
  });

  it("a single image is answered as before, and without binary every image is a data URI", () => {
    const single = image(9, 4);
    const answer = BinaryImageResponse.of(7, single)!;
    expect(answer.json).toBe(`{"id":7,"ok":true,"result":{"data":{"binary":0,"mime":"image/png","bytes":4},"format":"png","width":2,"height":1,"bounds":${JSON.stringify(BOUNDS)}}}`);
    expect(answer.parts).toHaveLength(1);

    const result = templateResult();
    const text = recordingSocket(false);
    expect(sendFrame(text, BinaryImageResponse.of("job", result)!)).toBe(1);
    const sent = JSON.parse((text.written[0] as { text: string }).text) as { result: unknown };
    expect(sent.result).toEqual(withDataUris(result));
    expect((withDataUris(result) as { variants: Array<{ image?: { data: string } }> }).variants[0]!.image!.data).toBe(`data:image/png;base64,${Buffer.alloc(3, 1).toString("base64")}`);
    // A result nobody marked is not searched: no binary answer, serialized as it is.
    expect(BinaryImageResponse.of("x", { variants: [{ image: image(1, 1) }] })).toBeUndefined();
    expect(BinaryImageResponse.of("x", withImages({ variants: [] }))).toBeUndefined();
  });

  it("more images than binary parts can number are answered with data URIs instead", () => {
    const many = withImages({ images: Array.from({ length: MAX_BINARY_PARTS + 1 }, () => image(0, 1)) });
    expect(BinaryImageResponse.of("big", many)).toBeUndefined();
    expect(BinaryImageResponse.of("big", withImages({ images: many.images.slice(1) }))!.parts).toHaveLength(MAX_BINARY_PARTS);
  });

  it("a replay buffer keeps the whole answer or drops it whole", () => {
    const answer = BinaryImageResponse.of("job", templateResult())!;
    const kept = new ReplayBuffer(10, 1024 * 1024, new ReplayBudget(1024 * 1024));
    kept.push("{\"type\":\"before\"}");
    kept.push(answer);
    kept.push("{\"type\":\"after\"}");
    const batch = kept.take();
    const socket = recordingSocket(true);
    expect(messageCount(socket, batch.frames)).toBe(6);
    for (const frame of batch.frames) sendFrame(socket, frame);
    expect(socket.written.map(label)).toEqual([
      "before",
      "answer",
      "part 0 of job",
      "part 1 of job",
      "part 2 of job",
      "after",
    ]);

    // Too big for the buffer's cap: the answer goes as one frame, counted as one lost, no part of it left behind.
    const small = new ReplayBuffer(10, answer.byteLength - 1, new ReplayBudget(1024 * 1024));
    small.push(answer as OutboundFrame);
    expect(small.take()).toEqual({ frames: [], lost: 1 });
  });
});
