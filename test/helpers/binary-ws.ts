import { WebSocket } from "ws";
import { encodeBinaryHeader } from "../../src/protocol/index.js";
import type { Frame } from "./ws-client.js";

/** One message as received: a parsed text frame, or a binary message's bytes. */
export type Message = { readonly text: Frame } | { readonly binary: Buffer };

/**
 * A raw WebSocket client that keeps text and binary messages in arrival order, so tests can check what follows
 * what on the wire. Waits on events, never on sleeps.
 */
export class BinaryTestClient {
  readonly messages: Message[] = [];
  readonly closed: Promise<number>;
  private waiters: Array<() => void> = [];

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data: Buffer, isBinary) => {
      this.messages.push(isBinary ? { binary: data } : { text: JSON.parse(String(data)) as Frame });
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.closed = new Promise((resolve) => ws.on("close", (code) => resolve(code)));
  }

  /** Opens `url` and resolves with the client once the `connected` handshake arrived. */
  static async open(url: string): Promise<BinaryTestClient> {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    const client = new BinaryTestClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    await client.waitFor((m) => "text" in m && m.text.type === "connected");
    return client;
  }

  get hello(): Record<string, unknown> {
    const found = this.messages.find((m) => "text" in m && m.text.type === "connected") as { text: Frame };
    return found.text.data as Record<string, unknown>;
  }

  /** Resolves with the index of the first message (received or future) that matches. */
  async waitFor(match: (m: Message) => boolean, from = 0): Promise<number> {
    for (;;) {
      const index = this.messages.findIndex((m, i) => i >= from && match(m));
      if (index !== -1) return index;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Resolves once `count` messages have arrived in all. */
  async received(count: number): Promise<void> {
    while (this.messages.length < count) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Sends a request and resolves with its response frame and the index of that frame among the messages. */
  async request(id: string, method: string, params?: unknown): Promise<{ frame: Frame; at: number }> {
    this.ws.send(JSON.stringify(params === undefined ? { id, method } : { id, method, params }));
    return this.answer(id);
  }

  /** The response to request `id` (already received or future). */
  async answer(id: string): Promise<{ frame: Frame; at: number }> {
    const at = await this.waitFor((m) => "text" in m && m.text.id === id);
    return { frame: (this.messages[at] as { text: Frame }).text, at };
  }

  /** The binary message right after message `at` (waits for it). */
  async binaryAfter(at: number): Promise<Buffer> {
    await this.received(at + 2);
    const next = this.messages[at + 1]!;
    if (!("binary" in next)) throw new Error(`message ${at + 1} is a text frame, not the binary message: ${JSON.stringify(next.text)}`);
    return next.binary;
  }

  /** Sends a binary message: the bridge's header for part `index` of request `id`, then `payload`. */
  sendPart(id: string | number, index: number, payload: Uint8Array): void {
    this.ws.send(Buffer.concat([encodeBinaryHeader(id, index), payload]));
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    this.ws.close(1000);
    await this.closed;
  }
}
