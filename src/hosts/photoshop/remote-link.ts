import { connect, type Socket } from "node:net";
import { Observable, Subject } from "rxjs";
import type { BridgeError } from "../../protocol/index.js";
import type { HostBounds } from "../../protocol/index.js";
import type { Logger } from "../../logger.js";
import { Gate } from "./_internal/gate.js";
import { deriveKey } from "./crypto.js";
import { looksLikeEnvelope, readEnvelope } from "./envelope.js";
import { busy, jsxFailed, refused, unavailable } from "./errors.js";
import { CONTENT, FrameDecoder, FramingError, PROTOCOL_VERSION, encodeFrame, type Message } from "./framing.js";
import type { PhotoshopLimits } from "./limits.js";
import type { PhotoshopLink, PixmapReply, PixmapRequest } from "./link.js";
import { decodePixmap, PixmapError, type Pixmap } from "./pixmap.js";
import { buildScript } from "./operations.js";

/** generator-core's id space: ids wrap below 2^24. */
const MAX_ID = 2 ** 24;
/** Reply of Photoshop to a keep-alive. */
const KEEPALIVE_REPLY = "Yep, still alive";

export interface RemoteLinkOptions {
  readonly host: string;
  readonly port: number;
  /** Never logged. */
  readonly password: string;
  readonly limits: PhotoshopLimits;
  readonly log: Logger;
}

/** One request waiting for its replies; `collect` decides when it is done (there is no end marker, B.6). */
interface Pending {
  collect(message: Message): void;
  fail(error: BridgeError): void;
}

interface EventChannel {
  readonly subject: Subject<string>;
  observers: number;
  /** Id of the subscribing request on the current connection; deliveries arrive on it. */
  id: number | undefined;
}

/**
 * A Remote Connections client (reference part B): framing, 3DES, transaction ids, per-request collectors,
 * keep-alive, events. Every in-flight call is rejected when the socket drops; `lost$` then lets the host session
 * reconnect (which calls {@link open} again, re-subscribing events).
 */
export class RemoteLink implements PhotoshopLink {
  readonly lost$ = new Subject<Error>();
  private key: Buffer | undefined;
  private socket: Socket | undefined;
  private readonly pending = new Map<number, Pending>();
  private readonly events = new Map<string, EventChannel>();
  private readonly eventIds = new Map<number, EventChannel>();
  private nextId = 1;
  private opened = false;
  private lastHeard = 0;
  private keepAliveTimer: NodeJS.Timeout | undefined;
  private keepAliveInFlight = false;
  private readonly scripts: Gate;
  private readonly pixmaps: Gate;

  constructor(private readonly options: RemoteLinkOptions) {
    // As many may wait as run: the bridge's calls are serial, but derived events re-query beside them.
    this.scripts = new Gate("script", options.limits.maxScriptsInFlight, options.limits.maxScriptsInFlight);
    this.pixmaps = new Gate("pixmap", options.limits.maxPixmapsInFlight, options.limits.maxScriptsInFlight);
  }

  async open(): Promise<string> {
    this.teardown(unavailable("Reconnecting to Photoshop"));
    this.key ??= deriveKey(this.options.password);
    const { host, port, limits } = this.options;
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect({ host, port, noDelay: true });
      const timer = setTimeout(() => {
        s.destroy();
        reject(unavailable(`Photoshop at ${host}:${port} did not accept the connection within ${limits.connectTimeoutMs} ms`, { host, port }));
      }, limits.connectTimeoutMs);
      s.once("connect", () => {
        clearTimeout(timer);
        s.removeAllListeners("error");
        resolve(s);
      });
      s.once("error", (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(unavailable(`Photoshop at ${host}:${port} is not reachable (${error.code ?? error.message})`, { host, port, cause: error.code }));
      });
    });
    this.attach(socket);
    const signal = AbortSignal.timeout(limits.connectTimeoutMs);
    const info = readEnvelope(await this.evaluate(buildScript("app.info", {}), signal), "app.info") as { version?: unknown };
    this.opened = true;
    for (const [name, channel] of this.events) if (channel.observers > 0) this.subscribeRemote(name, channel);
    this.options.log.info({ actor: "host", editor: "photoshop", host, port }, "Remote Connections link open");
    return String(info.version ?? "unknown");
  }

  async close(): Promise<void> {
    this.opened = false;
    this.teardown(unavailable("The Photoshop link was closed"));
  }

  evaluate(script: string, signal: AbortSignal): Promise<string> {
    return this.scripts.acquire(signal).then((release) =>
      this.request<string>(CONTENT.JAVASCRIPT, Buffer.from(script, "utf8"), signal, (message, done, fail) => {
        if (message.type === CONTENT.JAVASCRIPT) done(message.body.toString("utf8"));
        else if (message.type === CONTENT.ERROR) fail(jsxFailed(message.body.toString("utf8")));
      }).finally(release),
    );
  }

  pixmap(request: PixmapRequest, signal: AbortSignal): Promise<PixmapReply> {
    const script = buildScript("pixmap", { ...request, boundsOnly: false });
    const maxPixels = this.options.limits.maxPixmapEdge ** 2;
    return this.pixmaps.acquire(signal).then((release) => {
      let bounds: HostBounds | undefined;
      let pixmap: Pixmap | undefined;
      return this.request<PixmapReply>(CONTENT.JAVASCRIPT, Buffer.from(script, "utf8"), signal, (message, done, fail) => {
        try {
          if (message.type === CONTENT.IMAGE) pixmap = decodePixmap(message.body, maxPixels);
          else if (message.type === CONTENT.ERROR) return fail(jsxFailed(message.body.toString("utf8")));
          else if (message.type === CONTENT.JAVASCRIPT) {
            const text = message.body.toString("utf8");
            if (looksLikeEnvelope(text)) readEnvelope(text, "pixmap");
            else if (text.startsWith("{")) bounds = (JSON.parse(text) as { bounds: HostBounds }).bounds;
          }
        } catch (error) {
          return fail(error instanceof PixmapError || error instanceof SyntaxError ? jsxFailed(String(error.message)) : (error as BridgeError));
        }
        if (bounds && pixmap) done({ bounds, pixmap });
      }).finally(release);
    });
  }

  event(name: string): Observable<string> {
    return new Observable<string>((subscriber) => {
      let channel = this.events.get(name);
      if (!channel) {
        channel = { subject: new Subject<string>(), observers: 0, id: undefined };
        this.events.set(name, channel);
      }
      const sub = channel.subject.subscribe(subscriber);
      channel.observers++;
      if (channel.observers === 1 && this.opened) this.subscribeRemote(name, channel);
      const held = channel;
      return () => {
        sub.unsubscribe();
        held.observers--;
        if (held.observers > 0) return;
        if (held.id !== undefined) this.eventIds.delete(held.id);
        held.id = undefined;
        // Photoshop's imageChanged is expensive: stop it as soon as nobody listens.
        if (this.opened) this.fireAndForget(buildScript("events.subscribe", { event: name, subscribe: false }));
      };
    });
  }

  private subscribeRemote(name: string, channel: EventChannel): void {
    const id = this.allocateId();
    channel.id = id;
    this.eventIds.set(id, channel);
    this.write(id, CONTENT.JAVASCRIPT, Buffer.from(buildScript("events.subscribe", { event: name, subscribe: true }), "utf8"));
  }

  private fireAndForget(script: string): void {
    this.request(CONTENT.JAVASCRIPT, Buffer.from(script, "utf8"), AbortSignal.timeout(this.options.limits.keepAliveTimeoutMs), (m, done) =>
      done(m),
    ).catch((error: unknown) => this.options.log.debug({ actor: "host", editor: "photoshop", err: String(error) }, "unsubscribe failed"));
  }

  private request<T>(
    type: number,
    body: Buffer,
    signal: AbortSignal,
    collect: (message: Message, done: (value: T) => void, fail: (error: BridgeError) => void) => void,
  ): Promise<T> {
    if (!this.socket || this.socket.destroyed) return Promise.reject(unavailable("Not connected to Photoshop"));
    if (signal.aborted) return Promise.reject(busy("The call's deadline passed before it was sent"));
    const id = this.allocateId();
    return new Promise<T>((resolve, reject) => {
      const finish = (): void => {
        this.pending.delete(id);
        signal.removeEventListener("abort", onAbort);
      };
      // The id is freed at our deadline; a late reply to it is then dropped (B.6).
      const onAbort = (): void => {
        finish();
        reject(busy("Photoshop did not answer within the call's deadline (a modal dialog or a long operation?)", { id }));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, {
        collect: (message) =>
          collect(
            message,
            (value) => {
              finish();
              resolve(value);
            },
            (error) => {
              finish();
              reject(error);
            },
          ),
        fail: (error) => {
          finish();
          reject(error);
        },
      });
      this.write(id, type, body);
    });
  }

  private allocateId(): number {
    for (;;) {
      const id = this.nextId;
      this.nextId = (this.nextId + 1) % MAX_ID || 1;
      if (!this.pending.has(id) && !this.eventIds.has(id)) return id;
    }
  }

  private write(id: number, type: number, body: Buffer): void {
    this.socket?.write(encodeFrame(this.key!, id, type, body));
  }

  private attach(socket: Socket): void {
    this.socket = socket;
    this.lastHeard = Date.now();
    const decoder = new FrameDecoder(this.key!, this.options.limits.maxFrameBytes, (message) => this.route(socket, message));
    socket.on("data", (chunk: Buffer) => {
      // Any bytes count as life: a big pixmap takes longer than the idle time to arrive as one message.
      this.lastHeard = Date.now();
      try {
        decoder.push(chunk);
      } catch (error) {
        const text = error instanceof FramingError ? error.message : String(error);
        this.options.log.warn({ actor: "host", editor: "photoshop", err: text }, "unreadable data from Photoshop; closing");
        this.drop(socket, unavailable(`Photoshop sent unreadable data: ${text}`));
      }
    });
    socket.on("error", (error) => this.drop(socket, unavailable(`Photoshop connection error: ${error.message}`)));
    socket.on("close", () => this.drop(socket, unavailable("The connection to Photoshop was lost")));
    this.keepAliveTimer = setInterval(() => this.keepAlive(socket), Math.max(10, this.options.limits.keepAliveIdleMs / 2));
    this.keepAliveTimer.unref();
  }

  private keepAlive(socket: Socket): void {
    const { keepAliveIdleMs, keepAliveTimeoutMs } = this.options.limits;
    // While a call is in flight Photoshop is busy with it (one script at a time: a long Select Subject answers
    // nothing else until it ends); the call's own deadline bounds it, so a ping then would only misread "busy" as "gone".
    if (this.keepAliveInFlight || this.pending.size > 0 || Date.now() - this.lastHeard < keepAliveIdleMs) return;
    this.keepAliveInFlight = true;
    const sentAt = Date.now();
    this.request<void>(CONTENT.KEEPALIVE, Buffer.alloc(0), AbortSignal.timeout(keepAliveTimeoutMs), (message, done) => {
      if (message.type === CONTENT.JAVASCRIPT) done();
    }).then(
      () => {
        this.keepAliveInFlight = false;
      },
      () => {
        this.keepAliveInFlight = false;
        // Data arrived meanwhile (replies to a call made after the ping): the link is alive, only busy.
        if (this.lastHeard > sentAt) return;
        this.drop(socket, unavailable(`Photoshop did not answer a keep-alive within ${keepAliveTimeoutMs} ms`));
      },
    );
  }

  private route(socket: Socket, message: Message): void {
    if (socket !== this.socket) return;
    this.lastHeard = Date.now();
    if (message.status !== 0) {
      // Connection-level refusal (wrong password, remote connections off): fatal and not retryable (B.5).
      this.drop(socket, refused(message.status));
      return;
    }
    if (message.version !== PROTOCOL_VERSION) {
      this.options.log.warn({ actor: "host", editor: "photoshop", version: message.version }, "dropped a message of unknown protocol version");
      return;
    }
    const pending = this.pending.get(message.id);
    if (pending) {
      pending.collect(message);
      return;
    }
    const channel = this.eventIds.get(message.id);
    if (channel && message.type === CONTENT.JAVASCRIPT) {
      const text = message.body.toString("utf8");
      const cr = text.indexOf("\r");
      // The first reply on a subscription id is the subscribing script's own envelope; events carry `name\rdata`.
      if (cr >= 0) channel.subject.next(text.slice(cr + 1));
      return;
    }
    if (message.type === CONTENT.JAVASCRIPT && message.body.toString("utf8") === KEEPALIVE_REPLY) return;
    this.options.log.debug({ actor: "host", editor: "photoshop", id: message.id, type: message.type }, "dropped a late or unknown message");
  }

  /** The socket is gone: every in-flight call fails, and `lost$` fires if the link had been open. */
  private drop(socket: Socket, error: BridgeError): void {
    if (socket !== this.socket) return;
    const wasOpen = this.opened;
    this.opened = false;
    this.teardown(error);
    if (wasOpen) this.lost$.next(error);
  }

  private teardown(error: BridgeError): void {
    clearInterval(this.keepAliveTimer);
    this.keepAliveTimer = undefined;
    this.keepAliveInFlight = false;
    const socket = this.socket;
    this.socket = undefined;
    socket?.destroy();
    for (const pending of [...this.pending.values()]) pending.fail(error);
    this.pending.clear();
    this.eventIds.clear();
    for (const channel of this.events.values()) channel.id = undefined;
  }
}
