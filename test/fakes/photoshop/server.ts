/*
 * A fake Photoshop Remote Connections server for tests (reference "Fake Photoshop server for tests"): real TCP
 * on 127.0.0.1, the encrypted framed protocol, an in-memory document model on which every script the bridge sends
 * runs through an ES3 realm and a Photoshop DOM stub (`extendscript/`), generator-core's own scripts (so Adobe's
 * client can be run against it), events, pixmaps, and fault injection.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StubEffects } from "./extendscript/dom.js";
import { StubFailure, decodeImages, runExtendScript } from "./extendscript/run.js";
import { type FakeSample, FakeModel, type PixelSource } from "./model.js";
import { FrameSplitter, SDK_IV, frame, keyFor, pixmapBody, statusFrame } from "./wire.js";

const T_ERROR = 1;
const T_JS = 2;
const T_IMAGE = 3;
const T_KEEPALIVE = 6;
const T_JS_SHARED = 10;

/** One decoded request, as the fake saw it. */
export interface Recorded {
  readonly id: number;
  readonly type: number;
  readonly script: string;
  /** Parsed from a leading `var params = …;` line, or undefined. */
  readonly params: unknown;
  /** The bridge operation named by its `// @bridge-op` marker, if any. */
  readonly op: string | undefined;
  readonly raw: Buffer;
}

type PixmapPart = "bounds" | "pixmap" | "result";

/** Faults to inject; change them at any time (they are read per request). */
export interface Faults {
  /** Delay before every reply. */
  delayMs?: number;
  /** Extra pseudo-random delay per reply, up to this many ms: replies overtake each other. */
  jitterMs?: number;
  /** Requests that are never answered. */
  neverAnswer?: (request: Recorded) => boolean;
  /** Requests on which the fake drops the connection instead of answering. */
  dropOn?: (request: Recorded) => boolean;
  /** Requests answered with a type-1 error text. */
  scriptError?: (request: Recorded) => string | undefined;
  /** Write replies one byte at a time. */
  dribble?: boolean;
  /** Write all frames of one reply in one chunk. */
  coalesce?: boolean;
  /** Bytes of padding at the end of each pixmap row (rowBytes > width × 4). */
  rowPadding?: number;
  /** Order of the three replies to a pixmap request. */
  pixmapOrder?: PixmapPart[];
  /** Send every reply twice (late duplicates). */
  duplicate?: boolean;
  /** Before each reply, send a message with protocol version 2 and one with an unknown content type. */
  noise?: boolean;
}

/** A test's own answer to a script: text (type 2) or an error (type 1); undefined to fall through. */
export type ScriptHandler = (script: string, params: unknown) => { text: string } | { error: string } | undefined;

export interface FakePhotoshopOptions {
  /** @default "password" */
  password?: string;
  /** IV the fake encrypts and decrypts with. @default the SDK's all-zero IV (the client uses generator-core's) */
  iv?: Buffer;
  /** Largest frame the fake reads. @default 64 MiB */
  maxFrameBytes?: number;
  /** A fixed port (for restarts). @default 0 */
  port?: number;
  /** The document open at the start (and after a restart). @default "fake" */
  sample?: FakeSample;
}

interface Connection {
  socket: Socket;
  /** Subscription ids per event name. */
  subscriptions: Map<string, Set<number>>;
}

function parseParams(script: string): unknown {
  const match = /^var params = (.*);\n/.exec(script);
  if (!match) return undefined;
  try {
    return JSON.parse(match[1]!);
  } catch {
    return undefined;
  }
}

export class FakePhotoshop {
  readonly requests: Recorded[] = [];
  /** What each bridge operation's script did through the DOM stub (its changes, history states, ActionManager events). */
  readonly runs: Array<{ op: string; params: unknown } & Pick<StubEffects, "calls" | "history" | "actions">> = [];
  /** Ids of the requests answered, in the order their replies were written. */
  readonly replyOrder: number[] = [];
  faults: Faults = {};
  readonly handlers: ScriptHandler[] = [];
  model: FakeModel;
  port = 0;
  private server: Server | undefined;
  private readonly connections = new Set<Connection>();
  private readonly key: Buffer;
  private readonly iv: Buffer;
  private waiters: Array<{ match: (r: Recorded) => boolean; resolve: (r: Recorded) => void }> = [];
  private seed = 1;
  private exeDir: string | undefined;
  private connectWaiters: Array<() => void> = [];
  private subscriptionWaiters: Array<() => void> = [];
  connectionsSeen = 0;

  private constructor(
    readonly password: string,
    private readonly options: FakePhotoshopOptions,
  ) {
    this.key = keyFor(password);
    this.iv = options.iv ?? SDK_IV;
    this.model = FakeModel.withSample((name, data) => this.emitEvent(name, data), this.options.sample);
  }

  static async start(options: FakePhotoshopOptions = {}): Promise<FakePhotoshop> {
    const fake = new FakePhotoshop(options.password ?? "password", options);
    await fake.listen(options.port ?? 0);
    return fake;
  }

  get address(): { host: string; port: number; password: string } {
    return { host: "127.0.0.1", port: this.port, password: this.password };
  }

  /** Resolves with the next recorded request that matches (or one already recorded). */
  waitForRequest(match: (r: Recorded) => boolean): Promise<Recorded> {
    const seen = this.requests.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** Resolves once `count` connections were accepted in total. */
  async waitForConnections(count: number): Promise<void> {
    while (this.connectionsSeen < count) await new Promise<void>((resolve) => this.connectWaiters.push(resolve));
  }

  /** Event names some connection is subscribed to. */
  subscribedEvents(): string[] {
    const names = new Set<string>();
    for (const c of this.connections) for (const [name, ids] of c.subscriptions) if (ids.size > 0) names.add(name);
    return [...names];
  }

  /** Resolves once some connection is subscribed to `name` (or, with `present` false, none is). */
  async waitForSubscription(name: string, present = true): Promise<void> {
    while (this.subscribedEvents().includes(name) !== present) {
      await new Promise<void>((resolve) => this.subscriptionWaiters.push(resolve));
    }
  }

  private subscriptionsChanged(): void {
    for (const resolve of this.subscriptionWaiters.splice(0)) resolve();
  }

  /** Pushes `name\rdata` on every subscription id of that event. */
  emitEvent(name: string, data: string): void {
    for (const c of this.connections) {
      for (const id of c.subscriptions.get(name) ?? []) c.socket.write(frame(this.key, this.iv, id, T_JS, Buffer.from(`${name}\r${data}`)));
    }
  }

  /** Drops every open connection (Photoshop crashed or quit). */
  dropConnections(): void {
    for (const c of this.connections) c.socket.destroy();
    this.connections.clear();
    this.subscriptionsChanged();
  }

  /** Stops listening and drops connections; `start()` again on the same port with {@link restart}. */
  async stop(): Promise<void> {
    this.dropConnections();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    if (this.exeDir) await rm(this.exeDir, { recursive: true, force: true });
    this.exeDir = undefined;
  }

  /** Stops, resets the documents to the sample, and listens again on the same port. */
  async restart(): Promise<void> {
    await this.stop();
    this.model = FakeModel.withSample((name, data) => this.emitEvent(name, data), this.options.sample);
    await this.listen(this.port);
  }

  private async listen(port: number): Promise<void> {
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    this.server = server;
    this.port = (server.address() as { port: number }).port;
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    const conn: Connection = { socket, subscriptions: new Map() };
    this.connections.add(conn);
    this.connectionsSeen++;
    for (const resolve of this.connectWaiters.splice(0)) resolve();
    const splitter = new FrameSplitter(this.key, this.iv, this.options.maxFrameBytes ?? 64 * 1024 * 1024);
    socket.on("data", (chunk: Buffer) => {
      for (const parsed of splitter.feed(chunk)) {
        if (parsed.kind === "bad-key") {
          // Photoshop's answer to a wrong password: a plain non-zero status frame, then the socket closes.
          socket.end(statusFrame(1));
          return;
        }
        if (parsed.kind === "bad-frame") {
          socket.destroy();
          return;
        }
        void this.handle(conn, parsed.message);
      }
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      this.connections.delete(conn);
      this.subscriptionsChanged();
    });
  }

  private random(): number {
    this.seed = (this.seed * 1103515245 + 12345) % 2 ** 31;
    return this.seed / 2 ** 31;
  }

  private async send(conn: Connection, frames: Buffer[]): Promise<void> {
    const f = this.faults;
    const wait = (f.delayMs ?? 0) + (f.jitterMs ? Math.floor(this.random() * f.jitterMs) : 0);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (conn.socket.destroyed) return;
    let out = frames;
    if (f.noise) {
      const noise = [frame(this.key, this.iv, 999_999, T_JS, Buffer.from("noise"), 2), frame(this.key, this.iv, 999_998, 77, Buffer.from("?"))];
      out = [...noise, ...out];
    }
    if (f.duplicate) out = [...out, ...out];
    if (f.coalesce) out = [Buffer.concat(out)];
    for (const chunk of out) {
      if (f.dribble) for (let i = 0; i < chunk.length; i++) conn.socket.write(chunk.subarray(i, i + 1));
      else conn.socket.write(chunk);
    }
  }

  private text(id: number, body: string): Buffer {
    return frame(this.key, this.iv, id, T_JS, Buffer.from(body, "utf8"));
  }

  private async handle(conn: Connection, message: { id: number; type: number; body: Buffer; raw: Buffer; version: number }): Promise<void> {
    const script = message.type === T_JS || message.type === T_JS_SHARED ? message.body.toString("utf8") : "";
    const op = /\/\/ @bridge-op ([\w.]+)/.exec(script)?.[1];
    const request: Recorded = { id: message.id, type: message.type, script, params: parseParams(script), op, raw: message.raw };
    this.requests.push(request);
    for (const w of this.waiters.filter((w) => w.match(request))) {
      this.waiters.splice(this.waiters.indexOf(w), 1);
      w.resolve(request);
    }
    const f = this.faults;
    if (f.dropOn?.(request)) {
      conn.socket.destroy();
      return;
    }
    if (f.neverAnswer?.(request)) return;
    if (message.type === T_KEEPALIVE) return this.send(conn, [this.text(message.id, "Yep, still alive")]);
    if (message.type !== T_JS && message.type !== T_JS_SHARED) return;
    const error = f.scriptError?.(request);
    if (error !== undefined) return this.send(conn, [frame(this.key, this.iv, message.id, T_ERROR, Buffer.from(error))]);
    try {
      const frames = await this.answer(conn, request);
      await this.send(conn, frames);
      this.replyOrder.push(message.id);
      return;
    } catch (e) {
      return this.send(conn, [frame(this.key, this.iv, message.id, T_ERROR, Buffer.from(`Error 8800: ${(e as Error).message}`))]);
    }
  }

  private pixmapFrames(id: number, source: PixelSource, result: Buffer): Buffer[] {
    const parts: Record<PixmapPart, Buffer> = {
      bounds: this.text(id, JSON.stringify({ bounds: source.bounds })),
      pixmap: frame(this.key, this.iv, id, T_IMAGE, pixmapBody(source.width, source.height, source.argbAt, this.faults.rowPadding ?? 0)),
      result,
    };
    return (this.faults.pixmapOrder ?? ["bounds", "pixmap", "result"]).map((part) => parts[part]);
  }

  private async answer(conn: Connection, request: Recorded): Promise<Buffer[]> {
    const { id, script, params, op } = request;
    for (const handler of this.handlers) {
      const reply = handler(script, params);
      if (reply && "text" in reply) return [this.text(id, reply.text)];
      if (reply) return [frame(this.key, this.iv, id, T_ERROR, Buffer.from(reply.error))];
    }
    // biome-ignore lint/suspicious/noExplicitAny: params are whatever the client's script sent; the fake reads them loosely
    const p = (params ?? {}) as Record<string, any>;
    if (op !== undefined) {
      // The operation's own ExtendScript runs against the model through the DOM stub (extendscript/), so its
      // serializer, its API use and its ES3-ness are what answer, not a TypeScript restatement of it.
      const run = runExtendScript(this.model, script, await decodeImages(p));
      this.runs.push({ op, params, calls: run.calls, history: run.history, actions: run.actions });
      for (const { event, subscribe } of run.subscriptions) {
        const ids = conn.subscriptions.get(event) ?? new Set<number>();
        conn.subscriptions.set(event, ids);
        if (subscribe) ids.add(id);
        else ids.clear();
        this.subscriptionsChanged();
      }
      const result = this.text(id, run.text);
      const pixmap = run.pixmaps[0];
      if (pixmap) return this.pixmapFrames(id, this.model.pixels(pixmap), result);
      return [result];
    }
    // generator-core's own scripts (for the referee test and the plugin's start-up).
    if (script.includes("sendLayerThumbnailToNetworkClient")) {
      try {
        return this.pixmapFrames(id, this.model.pixels(p), this.text(id, "[ActionDescriptor]"));
      } catch (e) {
        throw new Error((e as Error).message);
      }
    }
    if (script.includes("networkEventSubscribe")) {
      for (const name of (p["events"] as string[] | undefined) ?? []) {
        const ids = conn.subscriptions.get(name) ?? new Set<number>();
        ids.add(id);
        conn.subscriptions.set(name, ids);
      }
      this.subscriptionsChanged();
      return [this.text(id, "[ActionDescriptor]")];
    }
    if (script.includes("executablePath")) return [this.text(id, await this.executableDir())];
    if (script.includes("hostVersion")) return [this.text(id, "26.1.0")];
    if (script.includes("sendDocumentInfoToNetworkClient")) {
      const doc = this.model.docs.find((d) => d.id === (p["documentId"] ?? this.model.activeDoc));
      if (!doc) throw new Error("No Open Document");
      return [this.text(id, JSON.stringify({ version: "1.6.1", id: doc.id, file: doc.name, bounds: { top: 0, left: 0, bottom: doc.height, right: doc.width }, layers: [] })), this.text(id, "[ActionDescriptor]")];
    }
    if (script.includes("headlights") || script.includes("nodeMenu")) return [this.text(id, "[ActionDescriptor]")];
    // Any other script (jsx:run, the checklist's probes) runs in the same ES3 realm and DOM stub; a runtime error
    // becomes a type-1 reply with the line, as Photoshop sends it.
    try {
      return [this.text(id, runExtendScript(this.model, script).text)];
    } catch (e) {
      if (e instanceof StubFailure) throw e;
      const line = /photoshop\.jsx:(\d+)/.exec(String((e as Error).stack))?.[1] ?? "1";
      throw new Error(`${(e as Error).message}\rLine: ${line}`);
    }
  }

  private async executableDir(): Promise<string> {
    if (!this.exeDir) {
      this.exeDir = await mkdtemp(join(tmpdir(), "fake-photoshop-"));
      for (const name of ["convert", "convert.exe", "pngquant", "pngquant.exe", "flitetranscoder", "flitetranscoder.exe"]) {
        await writeFile(join(this.exeDir, name), "");
      }
    }
    return this.exeDir;
  }
}

