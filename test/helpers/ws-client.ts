import { WebSocket } from "ws";
import { clientIdPrefix } from "../../src/actors/clients/names.js";

export interface Frame {
  type?: string;
  id?: string;
  ok?: boolean;
  seq?: number;
  data?: unknown;
  result?: unknown;
  error?: { code: string; message: string; details?: Record<string, unknown>; retryable?: boolean; requestId?: string; method?: string };
}

/**
 * A test WebSocket client that records every frame and lets tests wait for the one they expect, so tests wait on
 * events, never on sleeps.
 */
export class TestClient {
  readonly frames: Frame[] = [];
  private waiters: Array<{ match: (f: Frame) => boolean; resolve: (f: Frame) => void }> = [];
  private nextId = 0;
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data)) as Frame;
      this.frames.push(frame);
      for (const waiter of this.waiters.slice()) {
        if (waiter.match(frame)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(frame);
        }
      }
    });
    this.closed = new Promise((resolve) => ws.on("close", (code, reason) => resolve({ code, reason: String(reason) })));
  }

  static async open(url: string, options: ConstructorParameters<typeof WebSocket>[2] & { protocols?: string[] } = {}): Promise<TestClient> {
    const { protocols, ...rest } = options;
    const ws = new WebSocket(url, protocols ?? [], rest);
    const client = new TestClient(ws);
    const connected = client.next((f) => f.type === "connected" || f.type === "error");
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
      ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
    await connected;
    return client;
  }

  /** The `connected` handshake data. */
  get hello(): { clientId: string; resumed: boolean; protocolVersion: number; replayed?: number; lost?: number } {
    return this.frames.find((f) => f.type === "connected")!.data as never;
  }

  /** Resolves with the first frame (already received or future) that matches. */
  next(match: (f: Frame) => boolean): Promise<Frame> {
    const seen = this.frames.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** Resolves with the `count`-th frame matching, counting frames already received. */
  async nth(match: (f: Frame) => boolean, count: number): Promise<Frame> {
    for (;;) {
      const all = this.frames.filter(match);
      if (all.length >= count) return all[count - 1]!;
      await new Promise<Frame>((resolve) => this.waiters.push({ match, resolve }));
    }
  }

  events(type: string): Frame[] {
    return this.frames.filter((f) => f.type === type);
  }

  send(method: string, params?: unknown, id = `r${++this.nextId}`): Promise<Frame> {
    this.ws.send(JSON.stringify(params === undefined ? { id, method } : { id, method, params }));
    return this.next((f) => f.id === id);
  }

  sendRaw(text: string | Buffer): void {
    this.ws.send(text);
  }

  async call<T = unknown>(method: string, params?: unknown): Promise<T> {
    const frame = await this.send(method, params);
    if (!frame.ok) throw Object.assign(new Error(frame.error!.message), frame.error);
    return frame.result as T;
  }

  async close(code = 1000): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    this.ws.close(code);
    await this.closed;
  }
}

/**
 * Resolves once `server:clients`, asked through `observer`, shows the client in `state` (or gone, for
 * `"disposed"`). The list names clients by id prefix only; `clientId` may be the full id or its prefix.
 * Server-side lifecycle changes are observed over the wire, not by sleeping.
 */
export async function waitForClient(observer: TestClient, clientId: string, state: "attached" | "detached" | "disposed"): Promise<void> {
  for (;;) {
    const { clients } = await observer.call<{ clients: Array<{ idPrefix: string; state: string }> }>("server:clients");
    const found = clients.find((c) => c.idPrefix === clientIdPrefix(clientId));
    if (state === "disposed" ? found === undefined : found?.state === state) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Opens a socket expecting the upgrade to be refused; resolves with the HTTP status and the ProtocolError body. */
export function refusedUpgrade(
  url: string,
  options: ConstructorParameters<typeof WebSocket>[2] = {},
  protocols: string[] = [],
): Promise<{ status: number; body: { code: string; message: string; details?: Record<string, unknown> } }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, options);
    ws.on("open", () => reject(new Error("upgrade was accepted")));
    ws.on("error", () => {});
    ws.on("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }));
    });
  });
}
