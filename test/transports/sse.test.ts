import { fileURLToPath } from "node:url";
import { createServer, get, type IncomingMessage, type Server } from "node:http";
import { chromiumPresent, launchChromium } from "../helpers/chromium.js";
import type { Browser } from "playwright-core";
import { pino } from "pino";
import { Subject, type Observable } from "rxjs";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Harness } from "../helpers/bridge.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { ScriptedHost } from "../helpers/scripted-host.js";
import { until as untilRead } from "../helpers/until.js";

const rect = { x: 1, y: 2, width: 3, height: 4 };

interface SseMessage {
  readonly id?: string;
  readonly event: string;
  readonly data: string;
}

/** A `curl -N`-style reader: node's http.get, the stream parsed by hand as the SSE format says. */
class SseReader {
  readonly messages: SseMessage[] = [];
  readonly comments: string[] = [];
  bytes = 0;
  readonly ended: Promise<void>;
  private text = "";
  private waiters: Array<() => void> = [];

  private constructor(readonly response: IncomingMessage) {
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => {
      this.bytes += Buffer.byteLength(chunk);
      this.text += chunk;
      for (let end = this.text.indexOf("\n\n"); end >= 0; end = this.text.indexOf("\n\n")) {
        const block = this.text.slice(0, end);
        this.text = this.text.slice(end + 2);
        const fields: Record<string, string> = {};
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) this.comments.push(line.slice(1).trim());
          else {
            const colon = line.indexOf(":");
            fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, "");
          }
        }
        if (fields["data"] !== undefined) this.messages.push({ id: fields["id"], event: fields["event"] ?? "message", data: fields["data"] });
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.ended = new Promise((resolve) => response.once("close", () => resolve()));
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
    return new Promise((resolve, reject) => {
      const request = get(url, { headers: { accept: "text/event-stream", ...headers } }, (response) => {
        const reader = new SseReader(response);
        readers.push(reader);
        resolve(reader);
      });
      request.once("error", reject);
    });
  }

  /** Resolves once `count` messages of a type arrived. */
  async until(event: string, count: number): Promise<SseMessage[]> {
    for (;;) {
      const found = this.messages.filter((m) => m.event === event);
      if (found.length >= count) return found;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Resolves once a comment arrived (the stream is open and its listeners are set). */
  async comment(text: string): Promise<void> {
    while (!this.comments.includes(text)) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  close(): void {
    this.response.destroy();
  }
}

const readers: SseReader[] = [];
afterEach(() => {
  for (const reader of readers.splice(0)) reader.close();
});

async function openStream(harness: Harness, query: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const reader = await SseReader.open(`${harness.bridge.url}/events${query}`, headers);
  await reader.comment("connected");
  return reader;
}

describe("event streams (SSE)", () => {
  it("a curl-style reader receives selection:changed after another client's selection:set", async () => {
    const harness = await startOnSharedEditor();
    const reader = await openStream(harness, "?type=selection:changed");
    expect(reader.response.statusCode).toBe(200);
    expect(reader.response.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    const other = await harness.connect();
    await other.call("selection:set", { rect });
    const [message] = await reader.until("selection:changed", 1);
    expect(JSON.parse(message!.data)).toEqual(rect);
    expect(message!.id).toMatch(/^[0-9a-f]+-\d+$/);
  });

  it("a reconnect with Last-Event-ID gets exactly the missed events, in order, then live ones", async () => {
    const harness = await startOnSharedEditor();
    const other = await harness.connect();
    const first = await openStream(harness, "?type=selection:changed");
    await other.call("selection:set", { rect });
    const [seen] = await first.until("selection:changed", 1);
    first.close();
    await first.ended;
    const missed = [
      { x: 10, y: 10, width: 5, height: 5 },
      { x: 20, y: 20, width: 6, height: 6 },
      null,
    ];
    for (const each of missed) await other.call("selection:set", { rect: each });
    const header = await openStream(harness, "?type=selection:changed", { "last-event-id": seen!.id! });
    const replayed = await header.until("selection:changed", 3);
    expect(replayed.map((m) => JSON.parse(m.data))).toEqual(missed);
    expect(header.messages.some((m) => m.event === "lost")).toBe(false);
    // The query form resumes the same way (EventSource cannot set headers on its first connection).
    const query = await openStream(harness, `?type=selection:changed&lastEventId=${encodeURIComponent(replayed[0]!.id!)}`);
    expect((await query.until("selection:changed", 2)).map((m) => m.id)).toEqual([replayed[1]!.id, replayed[2]!.id]);
    await other.call("selection:set", { rect });
    expect(JSON.parse((await header.until("selection:changed", 4))[3]!.data)).toEqual(rect);
  });

  it("a reconnect past what the log holds gets `lost` with the count, then what the log still has", async () => {
    const harness = await startOnSharedEditor({ limits: { sseLogEvents: 2 } });
    const other = await harness.connect();
    const first = await openStream(harness, "?type=selection:changed");
    await other.call("selection:set", { rect });
    const [seen] = await first.until("selection:changed", 1);
    for (let x = 1; x <= 5; x++) await other.call("selection:set", { rect: { ...rect, x } });
    await first.until("selection:changed", 6);
    const resumed = await openStream(harness, "?type=selection:changed", { "last-event-id": seen!.id! });
    const events = await resumed.until("selection:changed", 2);
    const lost = resumed.messages.find((m) => m.event === "lost");
    expect(JSON.parse(lost!.data)).toEqual({ count: 3, exact: true, since: seen!.id });
    expect(events.map((m) => JSON.parse(m.data).x)).toEqual([4, 5]);
    // An id from another bridge (or before a restart): what was missed is unknown, and said so.
    const stranger = await openStream(harness, "?type=selection:changed", { "last-event-id": "0badf00d-3" });
    const unknown = await stranger.until("lost", 1);
    expect(JSON.parse(unknown[0]!.data)).toEqual({ count: null, exact: false, since: "0badf00d-3" });
  });

  it("the lost count is the reader's own types only, exact while the log remembers what it dropped", async () => {
    const host = new PreviewHost();
    const harness = await startOnSharedEditor({ host, limits: { sseLogEvents: 2 } });
    const preview = { documentId: 1, layer: { id: 2, name: "L", index: 0 }, image: { format: "png", width: 1, height: 1, bytes: ONE_PIXEL_PNG } };
    // Another reader keeps previews in the log, so they push selection events out of it.
    const previews = await openStream(harness, "?type=layer:previewChange");
    const reader = await openStream(harness, "?type=selection:changed");
    host.emitSelection({ ...rect, x: 0 });
    const [seen] = await reader.until("selection:changed", 1);
    reader.close();
    host.previews.next(preview);
    host.previews.next(preview);
    host.emitSelection({ ...rect, x: 1 });
    host.previews.next(preview);
    host.emitSelection({ ...rect, x: 2 });
    await previews.until("layer:previewChange", 3);
    const resumed = await openStream(harness, "?type=selection:changed", { "last-event-id": seen!.id! });
    const [event] = await resumed.until("selection:changed", 1);
    expect(JSON.parse(event!.data).x).toBe(2);
    // Dropped since the id: two previews and the selection x=1; this reader missed one event of its own.
    expect(JSON.parse(resumed.messages.find((m) => m.event === "lost")!.data)).toEqual({ count: 1, exact: true, since: seen!.id });
  });

  it("past what the log remembers of dropped events, the lost count is an upper bound and says so", async () => {
    const harness = await startOnSharedEditor({ limits: { sseLogEvents: 1, sseLogDroppedEvents: 1 } });
    const other = await harness.connect();
    const first = await openStream(harness, "?type=selection:changed");
    await other.call("selection:set", { rect });
    const [seen] = await first.until("selection:changed", 1);
    for (let x = 1; x <= 3; x++) await other.call("selection:set", { rect: { ...rect, x } });
    await first.until("selection:changed", 4);
    const resumed = await openStream(harness, "?type=selection:changed", { "last-event-id": seen!.id! });
    await resumed.until("selection:changed", 1);
    expect(JSON.parse(resumed.messages.find((m) => m.event === "lost")!.data)).toEqual({ count: 2, exact: false, since: seen!.id });
  });

  it("names an unknown type with BAD_REQUEST and the accepted list", async () => {
    const harness = await startOnSharedEditor();
    const unknown = await harness.http("/events?type=nope:never");
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ code: "BAD_REQUEST", details: { type: "nope:never", accepted: expect.arrayContaining(["selection:changed"]) } });
  });

  it('a stream without ?type= follows "*": every event type but previews, which come only when named', async () => {
    const harness = await startOnSharedEditor();
    const every = await openStream(harness, "");
    const withPreviews = await openStream(harness, "?type=*&type=layer:previewChange");
    const other = await harness.connect();
    const layers = await other.call<Array<{ id: number }>>("document:layers");
    await other.call("layer:select", { ids: [layers[layers.length - 1]!.id] });
    await withPreviews.until("layer:previewChange", 1);
    await every.until("layer:selectionChange", 1);
    // A selection logged after the preview: once the first stream has it, it has had every event logged before.
    await other.call("selection:set", { rect });
    await every.until("selection:changed", 1);
    await withPreviews.until("selection:changed", 1);
    expect(every.messages.map((m) => m.event)).toContain("documentChanged");
    expect(every.messages.map((m) => m.event)).not.toContain("layer:previewChange");
  });

  it("filters events by ?documentId=, letting events that name no document through", async () => {
    const host = new PreviewHost();
    const harness = await startOnSharedEditor({ host });
    const reader = await openStream(harness, "?type=layer:previewChange&type=selection:changed&documentId=7");
    const preview = (documentId: number) => ({ documentId, layer: { id: 2, name: "L", index: 0 }, image: { format: "png", width: 1, height: 1, bytes: ONE_PIXEL_PNG } });
    host.previews.next(preview(8));
    host.previews.next(preview(7));
    host.emitSelection(rect);
    await reader.until("selection:changed", 1);
    const previews = reader.messages.filter((m) => m.event === "layer:previewChange").map((m) => JSON.parse(m.data).documentId);
    expect(previews).toEqual([7]);
  });
});

describe("plugin event streams and heartbeats", () => {
  it("/plugins/{id}/events streams the plugin's own events; an unknown plugin is PLUGIN_NOT_FOUND", async () => {
    const harness = await startOnSharedEditor({ plugins: [fileURLToPath(new URL("../plugins/fixtures/stats", import.meta.url))] });
    const reader = await SseReader.open(`${harness.bridge.url}/plugins/stats/events?type=stats:selection`);
    await reader.comment("connected");
    const root = await harness.connect();
    await root.call("selection:set", { rect });
    const [event] = await reader.until("stats:selection", 1);
    expect(JSON.parse(event!.data)).toMatchObject(rect);
    const missing = await harness.http("/plugins/nope/events?type=x:y");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: "PLUGIN_NOT_FOUND" });
    // The root stream does not carry a plugin's events.
    expect((await harness.http("/events?type=stats:selection")).status).toBe(400);
  });

  it("?editor= picks the editor whose state events a stream follows; without it, the first editor's", async () => {
    const first = new PreviewHost();
    const second = new PreviewHost();
    const harness = await startOnSharedEditor({ hosts: [first, second] });
    const ofSecond = await openStream(harness, "?type=selection:changed&editor=scripted-2");
    const ofFirst = await openStream(harness, "?type=selection:changed");
    second.emitSelection({ ...rect, x: 2 });
    first.emitSelection({ ...rect, x: 1 });
    expect(JSON.parse((await ofSecond.until("selection:changed", 1))[0]!.data).x).toBe(2);
    expect(JSON.parse((await ofFirst.until("selection:changed", 1))[0]!.data).x).toBe(1);
    second.emitSelection({ ...rect, x: 3 });
    expect((await ofSecond.until("selection:changed", 2)).map((m) => JSON.parse(m.data).x)).toEqual([2, 3]);
    expect(ofFirst.messages.map((m) => JSON.parse(m.data).x)).toEqual([1]);
    const unknown = await harness.http("/events?type=selection:changed&editor=nope-9");
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ code: "BAD_REQUEST", details: { editor: "nope-9" } });
  });

  it("an idle stream gets a heartbeat comment every sseHeartbeatMs", async () => {
    const harness = await startOnSharedEditor({ limits: { sseHeartbeatMs: 30 } });
    const reader = await openStream(harness, "?type=selection:changed");
    await reader.comment("heartbeat");
    expect(reader.messages).toEqual([]);
  });
});

describe("event stream access", () => {
  const token = "s3cret-token-for-sse";

  it("needs the token, or a single-use ticket that expires", async () => {
    const harness = await startOnSharedEditor({ token, limits: { sseTicketTtlMs: 200 } });
    expect((await harness.http("/events?type=selection:changed")).status).toBe(401);
    expect((await harness.http("/events/ticket", { method: "POST" })).status).toBe(401);
    const issue = async (): Promise<string> => {
      const answer = await harness.http("/events/ticket", { method: "POST", headers: { authorization: `Bearer ${token}` } });
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { ticket: string }).ticket;
    };
    const ticket = await issue();
    const reader = await openStream(harness, `?type=selection:changed&ticket=${ticket}`);
    expect(reader.response.statusCode).toBe(200);
    // Spent: the same ticket again is no token at all.
    expect((await harness.http(`/events?type=selection:changed&ticket=${ticket}`)).status).toBe(401);
    const late = await issue();
    // Past the ticket's TTL (only the clock is faked; sockets and timers run as usual).
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 250);
      expect((await harness.http(`/events?type=selection:changed&ticket=${late}`)).status).toBe(401);
    } finally {
      vi.useRealTimers();
    }
    const bearer = await openStream(harness, "?type=selection:changed", { authorization: `Bearer ${token}` });
    expect(bearer.response.statusCode).toBe(200);
  });

  it("never logs a ticket, used or refused", async () => {
    const lines: string[] = [];
    const logger = pino({ level: "trace" }, { write: (line: string) => void lines.push(line) });
    const harness = await startOnSharedEditor({ token, logger });
    const answer = await harness.http("/events/ticket", { method: "POST", headers: { authorization: `Bearer ${token}` } });
    const { ticket } = (await answer.json()) as { ticket: string };
    const reader = await openStream(harness, `?type=selection:changed&ticket=${ticket}`);
    expect((await harness.http(`/events?type=selection:changed&ticket=${ticket}`)).status).toBe(401);
    reader.close();
    await reader.ended;
    await harness.bridge.close();
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((line) => line.includes(ticket))).toEqual([]);
  });

  it("refuses a foreign Origin as every route does", async () => {
    const harness = await startOnSharedEditor();
    const refused = await harness.http("/events?type=selection:changed", { headers: { origin: "https://evil.example" } });
    expect(refused.status).toBe(403);
  });
});

describe("slow event-stream readers", () => {
  it("a reader that stops reading is coalesced, then closed, and never gets the backlog", async () => {
    const host = new PreviewHost();
    const harness = await startOnSharedEditor({ host, limits: { sseSoftBytes: 64 * 1024, sseHardBytes: 1024 * 1024, sseSlowReaderMs: 200 } });
    const reader = await openStream(harness, "?type=selection:changed");
    reader.response.pause();
    const streams = async (): Promise<{ open: number; slowCloses: number; coalesced: number }> =>
      ((await (await harness.http("/status")).json()) as { eventStreams: { open: number; slowCloses: number; coalesced: number } }).eventStreams;
    // Big state events, until the kernel's buffers are full and the bridge's queue has been past the soft cap too long.
    const pad = "x".repeat(16 * 1024);
    let sent = 0;
    while ((await streams()).slowCloses === 0) {
      expect(sent).toBeLessThan(100_000);
      for (let i = 0; i < 10; i++) host.emitSelection({ ...rect, x: ++sent, pad });
    }
    const after = await streams();
    expect(after.open).toBe(0);
    expect(after.coalesced).toBeGreaterThan(0);
    // Reading again drains what the kernel held, then the stream ends: far less than what was emitted.
    reader.response.resume();
    await reader.ended;
    expect(reader.bytes).toBeLessThan((sent * pad.length) / 2);
  });
});

const hasChromium = chromiumPresent("EventSource browser test");

/** A page from another origin: asks for a ticket with the token, then opens an `EventSource` with it. */
const PAGE = `<!doctype html><meta charset="utf-8"><title>events</title>
<script>
  window.listen = async (bridge, token) => {
    const answer = await fetch(bridge + "/events/ticket", { method: "POST", headers: { authorization: "Bearer " + token } });
    const { ticket } = await answer.json();
    window.received = new Promise((resolve, reject) => {
      const source = new EventSource(bridge + "/events?type=selection:changed&ticket=" + encodeURIComponent(ticket));
      source.addEventListener("open", () => (window.opened = true));
      source.addEventListener("error", () => reject(new Error("EventSource error, readyState " + source.readyState)));
      source.addEventListener("selection:changed", (event) => {
        source.close();
        resolve({ data: JSON.parse(event.data), id: event.lastEventId });
      });
    });
  };
</script>`;

describe.skipIf(!hasChromium)("EventSource in a browser", () => {
  let server: Server;
  let origin: string;
  let browser: Browser;

  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(PAGE));
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  });

  it("a page's EventSource, opened with a ticket, receives selection:changed after another client's selection:set", { timeout: 60_000 }, async () => {
    const token = "page-token";
    const harness = await startOnSharedEditor({ token, allowOrigins: [origin] });
    const page = await browser.newPage();
    await page.goto(`${origin}/`);
    // The page's global scope, typed for what the page defines (no DOM types in this project).
    type PageGlobal = { listen?(bridge: string, token: string): Promise<void>; opened?: boolean; received?: Promise<unknown> };
    await page.evaluate(([bridge, secret]) => (globalThis as PageGlobal).listen!(bridge!, secret!), [harness.bridge.url, token]);
    await page.waitForFunction(() => (globalThis as PageGlobal).opened === true);
    const other = await harness.connect("/ws", { headers: { authorization: `Bearer ${token}` } });
    await other.call("selection:set", { rect });
    const received = (await page.evaluate(() => (globalThis as PageGlobal).received)) as { data: unknown; id: string };
    expect(received.data).toEqual(rect);
    expect(received.id).toMatch(/^[0-9a-f]+-\d+$/);
    await page.close();
  });
});

/** 1×1 transparent PNG. */
const ONE_PIXEL_PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

/** A scripted editor whose previews and selection events the test emits directly. */
class PreviewHost extends ScriptedHost {
  readonly previews = new Subject<unknown>();
  private readonly selections = new Subject<unknown>();

  override events(type: string): Observable<unknown> | undefined {
    if (type === "layer:previewChange") return this.previews.asObservable();
    if (type === "selection:changed") return this.selections.asObservable();
    return undefined;
  }

  emitSelection(value: unknown): void {
    this.selections.next(value);
  }
}

describe("event streams together", () => {
  type Counts = { open: number; slowCloses: number; budgetCloses: number; refused: number };
  const countsOf = async (harness: Harness): Promise<Counts> => ((await (await harness.http("/status")).json()) as { eventStreams: Counts }).eventStreams;
  /** Asks `/status` until `done` holds; the test's own timeout bounds it. */
  const until = async (harness: Harness, done: (counts: Counts) => boolean): Promise<Counts> => {
    return untilRead(() => countsOf(harness), done, { what: "the event streams' counts" });
  };

  /** A stream asked for from one loopback source address; resolves with the answer's head. */
  const streamFrom = (harness: Harness, localAddress: string): Promise<IncomingMessage> =>
    new Promise((resolve, reject) => {
      const request = get(`${harness.bridge.url}/events?type=selection:changed`, { localAddress }, (response) => {
        opened.push(response);
        resolve(response);
      });
      request.once("error", reject);
    });
  const opened: IncomingMessage[] = [];
  afterEach(() => {
    for (const response of opened.splice(0)) response.destroy();
  });
  const bodyOf = async (response: IncomingMessage): Promise<unknown> => {
    let text = "";
    for await (const chunk of response) text += String(chunk);
    return JSON.parse(text);
  };

  it("streams past sseMaxStreamsPerAddress get 429 and past sseMaxStreams 503, naming the limit; a closed stream frees its place", async () => {
    const harness = await startOnSharedEditor({ limits: { sseMaxStreams: 3, sseMaxStreamsPerAddress: 2 } });
    const a1 = await streamFrom(harness, "127.0.0.1");
    expect((await streamFrom(harness, "127.0.0.1")).statusCode).toBe(200);
    const perAddress = await streamFrom(harness, "127.0.0.1");
    expect(perAddress.statusCode).toBe(429);
    expect(await bodyOf(perAddress)).toMatchObject({ code: "TOO_MANY_REQUESTS", details: { limit: "sseMaxStreamsPerAddress", max: 2 } });
    // Another address has its own share, up to the total.
    expect((await streamFrom(harness, "127.0.0.2")).statusCode).toBe(200);
    const full = await streamFrom(harness, "127.0.0.3");
    expect(full.statusCode).toBe(503);
    expect(await bodyOf(full)).toMatchObject({ code: "HOST_BUSY", details: { limit: "sseMaxStreams", max: 3 } });
    expect(await countsOf(harness)).toMatchObject({ open: 3, refused: 2 });
    // A stream that ends gives its place back.
    a1.destroy();
    await until(harness, (counts) => counts.open === 2);
    expect((await streamFrom(harness, "127.0.0.3")).statusCode).toBe(200);
  });

  it("behind a trusted proxy each forwarded address has its own share of streams", async () => {
    const harness = await startOnSharedEditor({ trustProxy: true, limits: { sseMaxStreamsPerAddress: 1 } });
    const forwardedFor = (address: string): Promise<IncomingMessage> =>
      new Promise((resolve, reject) => {
        const request = get(`${harness.bridge.url}/events?type=selection:changed`, { headers: { "x-forwarded-for": address } }, (response) => {
          opened.push(response);
          resolve(response);
        });
        request.once("error", reject);
      });
    expect((await forwardedFor("203.0.113.7")).statusCode).toBe(200);
    expect((await forwardedFor("203.0.113.7")).statusCode).toBe(429);
    expect((await forwardedFor("203.0.113.8")).statusCode).toBe(200);
  });

  it("a reader left above sseSoftBytes is closed after sseSlowReaderMs even when no event follows", async () => {
    const host = new PreviewHost();
    const harness = await startOnSharedEditor({ host, limits: { sseSoftBytes: 64 * 1024, sseHardBytes: 256 * 1024 * 1024, sseSlowReaderMs: 300, sseTotalBytes: 1024 * 1024 * 1024 } });
    const reader = await openStream(harness, "?type=selection:changed");
    reader.response.pause();
    // One event larger than what the kernel's buffers take: the stream's queue stays above the soft cap, and nothing
    // more is sent to look at it.
    host.emitSelection({ ...rect, pad: "x".repeat(32 * 1024 * 1024) });
    const closed = await until(harness, (counts) => counts.slowCloses > 0);
    expect(closed).toMatchObject({ open: 0, slowCloses: 1, budgetCloses: 0 });
  });

  it("past sseTotalBytes the streams furthest behind are closed first; a reader that keeps up gets every event", async () => {
    const host = new PreviewHost();
    const MiB = 1024 * 1024;
    const harness = await startOnSharedEditor({ host, limits: { sseSoftBytes: 256 * MiB, sseHardBytes: 512 * MiB, sseSlowReaderMs: 600_000, sseTotalBytes: 4 * MiB } });
    const reading = await openStream(harness, "?type=selection:changed");
    const stuck = [];
    for (let i = 0; i < 4; i++) {
      const reader = await openStream(harness, "?type=selection:changed");
      reader.response.pause();
      stuck.push(reader);
    }
    // Events of 1 MiB, one at a time once the reading reader has it, until the budget closes someone.
    const pad = "x".repeat(MiB);
    let sent = 0;
    let counts = await countsOf(harness);
    while (counts.budgetCloses === 0) {
      expect(sent).toBeLessThan(500);
      host.emitSelection({ ...rect, x: ++sent, pad });
      await reading.until("selection:changed", sent);
      counts = await countsOf(harness);
    }
    // Only stuck readers were closed, and never past what it took to bring the total back under the budget.
    expect(reading.response.destroyed).toBe(false);
    expect(counts.open).toBeGreaterThanOrEqual(1);
    expect(counts.open).toBeLessThan(5);
    host.emitSelection({ ...rect, x: ++sent, pad: "" });
    const events = await reading.until("selection:changed", sent);
    expect(events.map((e) => (JSON.parse(e.data) as { x: number }).x)).toEqual(Array.from({ length: sent }, (_, i) => i + 1));
    expect(counts.slowCloses).toBe(0);
  });
});
