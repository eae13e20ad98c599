import { BINARY_FEATURE } from "../protocol/binary-frames.js";
import { CANCEL_FEATURE, PROGRESS_EVENT } from "../protocol/control-names.js";
import { BEARER_PROTOCOL_PREFIX } from "../protocol/constants.js";
import type { ConnectedEventData } from "../protocol/events.js";
import { BridgeError, CLIENT_ERROR_CODES, looksLikeProtocolError } from "./errors.js";
import { BridgeResources } from "./http.js";
import { createMethodGroups, type MethodGroup, type MethodGroups } from "./methods.js";
import { BinaryAnswers, hasBlobParams, readBlobParams } from "./binary.js";
import { clientResult } from "./image.js";
import { type ConnectionOptions, type ConnectionState, DEFAULT_CLOSE_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_QUEUED_REQUESTS, DEFAULT_RATE_LIMIT_RETRIES, DEFAULT_RECONNECT, DEFAULT_REQUEST_TIMEOUT_MS } from "./options.js";
import { CLOSE_CODES, BRIDGE_SUBPROTOCOL as SUBPROTOCOL } from "../protocol/constants.js";
import { ReconnectSchedule } from "./_internal/backoff.js";
import { asBridgeError, closedBy, closedError, connectFailure, gaveUp, isFinalClose, requestError } from "./_internal/connection-errors.js";
import { type AnyListener, Listeners } from "./_internal/listeners.js";
import { RequestTable } from "./_internal/requests.js";
import { EventSequence } from "./_internal/sequence.js";
import { readFrame } from "./_internal/frames.js";
import { type BatchMethod, bindBatch } from "./batch.js";
import { checkClientName, endpointsOf, socketUrl } from "./_internal/url.js";
import type {
  EventName,
  InvokeArgs,
  InvokeOptions,
  InvokeResult,
  Listener,
  LocalEventName,
  LocalEvents,
  MethodName,
  WebSocketConstructor,
  WebSocketLike,
} from "./types.js";

/** `WebSocket.OPEN`, written out: the class may be `ws`'s or the browser's. */
const OPEN = 1;

/**
 * A connection to the bridge: typed requests, ref-counted event subscriptions, and a logical client that
 * survives dropped sockets (resume with `?resume=`, replay in `seq` order, `$lost` when events were missed).
 * Works in browsers and in Node (pass `ws`'s WebSocket there).
 *
 * @example
 * import WebSocket from "ws";
 * const client = new Connection({ url: "http://127.0.0.1:7700", WebSocket });
 * await client.ready();
 * const doc = await client.document.current();
 * client.on("selection:changed", (rect) => console.log(rect));
 * await client.close();
 */
export class Connection extends BridgeResources implements MethodGroups {
  /** The WebSocket address (with the plugin path when `pluginId` was given). */
  readonly wsUrl: string;
  /** The HTTP base address of the same bridge. */
  readonly httpUrl: string;
  readonly document: MethodGroup<"document">;
  readonly layer: MethodGroup<"layer">;
  readonly image: MethodGroup<"image">;
  readonly selection: MethodGroup<"selection">;
  readonly action: MethodGroup<"action">;
  /**
   * Sends several calls as one `batch` request: they run in order, and one answer lists each outcome.
   * @example
   * const [doc, layers] = await client.batch([{ method: "document:current" }, { method: "document:layers" }]);
   */
  readonly batch: BatchMethod = bindBatch(this);
  readonly jsx: MethodGroup<"jsx">;
  readonly server: MethodGroup<"server">;
  readonly webhook: MethodGroup<"webhook">;
  /** A document's history: `client.history.undo()`, `redo`, `go`, `list`. */
  readonly history: MethodGroup<"history">;
  /** `font:list`: the editor's fonts for text layers. */
  readonly font: MethodGroup<"font">;
  /** `filter:apply`: blurs, sharpening, noise and the other filters, applied to a layer's pixels. */
  readonly filter: MethodGroup<"filter">;
  /** Layer comps: `client.layerComp.apply({name})`, `create`, `update`, `delete` (`client.document.layerComps()` lists them). */
  readonly layerComp: MethodGroup<"layerComp">;
  /** `template:render`: a layered template filled from a table of variants, each rendered to a file or an image. */
  readonly template: MethodGroup<"template">;

  private readonly options: ConnectionOptions;
  private readonly WebSocketClass: WebSocketConstructor;
  /** Null when `reconnect: false`. */
  private readonly reconnects: ReconnectSchedule | null;
  private phase: ConnectionState = "connecting";
  private socket: WebSocketLike | null = null;
  private hello: ConnectedEventData | undefined;
  private readonly requests: RequestTable;
  private readonly sequence = new EventSequence();
  private refusal: BridgeError | undefined;
  private connectTimer: ReturnType<typeof setTimeout> | undefined;
  private readyWaiters: Array<{ resolve: (hello: ConnectedEventData) => void; reject: (error: unknown) => void }> = [];
  private finalError: BridgeError | undefined;
  private closedPromise: Promise<void> | undefined;
  private readonly listeners: Listeners;
  private readonly binaryAnswers = new BinaryAnswers();

  constructor(options: ConnectionOptions) {
    if (options.name !== undefined) checkClientName(options.name);
    const endpoints = endpointsOf(options.url, options.pluginId);
    super({ url: endpoints.http, token: options.token, fetch: options.fetch });
    this.options = options;
    this.wsUrl = endpoints.ws;
    this.httpUrl = endpoints.http;
    const WebSocketClass = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (WebSocketClass === undefined) {
      throw new TypeError("No global WebSocket (Node 20): pass the `WebSocket` option, e.g. the class of the ws package");
    }
    this.WebSocketClass = WebSocketClass;
    this.reconnects =
      options.reconnect === false
        ? null
        : new ReconnectSchedule({ ...DEFAULT_RECONNECT, ...(typeof options.reconnect === "object" ? options.reconnect : {}) }, options.random);
    this.requests = new RequestTable(
      {
        timeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
        maxQueued: options.maxQueuedRequests ?? DEFAULT_MAX_QUEUED_REQUESTS,
        maxInFlight: options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT,
        rateLimitRetries: options.rateLimitRetries ?? DEFAULT_RATE_LIMIT_RETRIES,
      },
      // A socket already closing would drop frames silently; its close event brings a reconnect and a new pump.
      () => {
        const socket = this.socket;
        if (this.phase !== "open" || socket === null || socket.readyState !== OPEN || this.hello === undefined) return null;
        const features = this.hello.features ?? [];
        return {
          send: (frame) => socket.send(frame),
          clientId: this.hello.clientId,
          binary: features.includes(BINARY_FEATURE),
          cancel: features.includes(CANCEL_FEATURE),
        };
      },
    );
    this.listeners = new Listeners(
      {
        send: async (method, type) => ((await this.invoke(method, { type })) as { subscribed: boolean }).subscribed,
        canSend: () => this.phase === "open",
      },
      (type, error) => asBridgeError(error, `Subscribing to ${type} failed`),
    );
    const groups = createMethodGroups((method, params, invokeOptions) => this.send(method, params, invokeOptions));
    this.document = groups.document;
    this.layer = groups.layer;
    this.image = groups.image;
    this.selection = groups.selection;
    this.action = groups.action;
    this.jsx = groups.jsx;
    this.server = groups.server;
    this.webhook = groups.webhook;
    this.history = groups.history;
    this.font = groups.font;
    this.filter = groups.filter;
    this.layerComp = groups.layerComp;
    this.template = groups.template;
    this.openSocket();
  }

  /** `connecting` until the first handshake, `open`, `reconnecting` while the socket is away, `closed` for good. */
  get state(): ConnectionState {
    return this.phase;
  }

  /** The logical client id the bridge issued (stable across resumes). A bearer secret: keep it like a token. */
  get clientId(): string | undefined {
    return this.hello?.clientId;
  }

  /**
   * Resolves with the handshake once the connection is open. Rejects when the first connection fails (with the
   * bridge's reason when it can be learnt, e.g. `UNAUTHORIZED`) or the connection has ended.
   */
  ready(): Promise<ConnectedEventData> {
    if (this.phase === "open" && this.hello !== undefined) return Promise.resolve(this.hello);
    if (this.phase === "closed") return Promise.reject(this.finalError ?? closedError());
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  /**
   * Calls a method. Built-in methods are typed from the protocol schemas; plugin methods take and return
   * `unknown`. Requests made while the socket is away wait for it (bounded by `maxQueuedRequests`).
   *
   * @example
   * const layer = await client.invoke("layer:getInfoById", { layerId: 3 }, { timeoutMs: 5_000 });
   */
  invoke<M extends MethodName>(method: M, ...args: InvokeArgs<M>): Promise<InvokeResult<M>> {
    const [params, options] = args as [unknown, InvokeOptions | undefined];
    return this.send(method, params, options) as Promise<InvokeResult<M>>;
  }

  /** `getServerInfo`: name, version, editor and loaded plugins. */
  getServerInfo(options?: InvokeOptions): Promise<InvokeResult<"getServerInfo">> {
    return this.invoke("getServerInfo", undefined, options);
  }

  /**
   * Adds a listener. For a bridge event the first listener of a type subscribes on the wire and the last one
   * removed unsubscribes; a refused subscription is reported on `$error`. `$`-names are local notifications
   * ({@link LocalEvents}). Returns a function that removes the listener.
   *
   * @example
   * const off = client.on("selection:changed", (rect, { seq }) => console.log(seq, rect));
   * client.on("$lost", () => reloadEverything());
   */
  on<T extends EventName | LocalEventName>(type: T, listener: Listener<T>): () => void {
    this.listeners.add(type, listener as AnyListener, false);
    return () => this.off(type, listener);
  }

  /** Like {@link on}, removed after the first call. */
  once<T extends EventName | LocalEventName>(type: T, listener: Listener<T>): () => void {
    this.listeners.add(type, listener as AnyListener, true);
    return () => this.off(type, listener);
  }

  /** Removes one registration of a listener; the last one of a bridge event unsubscribes on the wire. */
  off<T extends EventName | LocalEventName>(type: T, listener: Listener<T>): void {
    this.listeners.remove(type, listener as AnyListener);
  }

  /**
   * Like {@link on} for a bridge event, but resolves once the bridge confirmed the subscription (and rejects,
   * without keeping the listener, when it refused). Resolves with an async remover.
   */
  subscribe<T extends EventName>(type: T, listener: Listener<T>): Promise<() => Promise<void>> {
    return this.listeners.addConfirmed(type, listener as AnyListener);
  }

  /**
   * Ends the connection and disposes the logical client on the bridge at once (close code 4000). Pending
   * requests fail with CONNECTION_CLOSED. Resolves when the socket has closed.
   */
  close(): Promise<void> {
    if (this.closedPromise !== undefined) return this.closedPromise;
    const socket = this.socket;
    this.socket = null;
    if (socket !== null) socket.onmessage = null;
    this.finish(closedError(), { code: CLOSE_CODES.DISPOSE, reason: "client closed" });
    this.closedPromise = new Promise<void>((resolve) => {
      if (socket === null) return resolve();
      const timer = setTimeout(resolve, DEFAULT_CLOSE_TIMEOUT_MS);
      socket.onclose = () => {
        clearTimeout(timer);
        resolve();
      };
      socket.close(CLOSE_CODES.DISPOSE, "client closed");
    });
    return this.closedPromise;
  }

  private send(method: string, params: unknown, options?: InvokeOptions): Promise<unknown> {
    if (this.phase === "closed") return Promise.reject(requestError(this.finalError ?? closedError(), undefined, method));
    const answer = hasBlobParams(params)
      ? readBlobParams(params).then((read) => this.requests.add(method, read, options))
      : this.requests.add(method, params, options);
    return answer.then((result) => clientResult(method, result));
  }

  // ——— socket lifecycle ———

  private openSocket(): void {
    const token = this.options.token;
    const url = socketUrl(this.wsUrl, { resume: this.hello?.clientId, name: this.options.name, binary: this.options.binary !== false });
    this.refusal = undefined;
    let socket: WebSocketLike;
    try {
      socket = token ? new this.WebSocketClass(url, [SUBPROTOCOL, `${BEARER_PROTOCOL_PREFIX}${token}`]) : new this.WebSocketClass(url);
    } catch (error) {
      // e.g. a token with characters a subprotocol cannot carry; retrying cannot help.
      this.finish(new BridgeError(CLIENT_ERROR_CODES.CONNECTION_FAILED, `Cannot open ${this.wsUrl}: ${(error as Error).message}`, { cause: error }), null);
      return;
    }
    this.socket = socket;
    socket.binaryType = "arraybuffer";
    socket.onopen = null;
    socket.onerror = () => {}; // a close event always follows
    socket.onmessage = (event) => {
      if (this.socket === socket) this.onFrame(event.data);
    };
    socket.onclose = (event) => this.onSocketClose(socket, event.code, event.reason);
    this.connectTimer = setTimeout(() => {
      if (this.socket !== socket) return;
      this.onSocketClose(socket, 1006, `no handshake within ${this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS} ms`);
      socket.close();
    }, this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
  }

  private onFrame(data: unknown): void {
    if (typeof data !== "string") {
      // A binary message: the image of the answer just before it.
      this.sequence.countFrame();
      const answer = this.binaryAnswers.complete(data as ArrayBuffer);
      if (answer !== undefined) this.requests.answer(answer);
      this.reportReplayLoss();
      return;
    }
    const frame = readFrame(data);
    if (frame === undefined) return;
    this.sequence.countFrame();
    if (frame.kind === "answer") {
      if (frame.ok) this.reconnects?.answered(); // the bridge is answering again: a flood, if any, is over
      const answer = this.binaryAnswers.hold(frame.frame);
      if (answer !== undefined) this.requests.answer(answer);
    } else if (frame.kind === "event") this.onEvent(frame.type, frame.data, frame.seq);
    this.reportReplayLoss();
  }

  private onEvent(type: string, data: unknown, seq: number | undefined): void {
    if (seq === undefined && type === "connected") {
      this.onConnected(data as ConnectedEventData);
      return;
    }
    if (seq === undefined && type === "error") {
      const error = looksLikeProtocolError(data)
        ? BridgeError.fromProtocolError(data)
        : new BridgeError("INTERNAL", "The bridge reported an error");
      if (this.phase === "open") this.listeners.emitLocal("$error", error);
      else this.refusal = error;
      return;
    }
    // Progress about one of this client's requests: for that request's `onProgress`, never replayed.
    if (seq === undefined && type === PROGRESS_EVENT) {
      this.requests.progress(data);
      return;
    }
    // Every event the bridge delivers to a subscriber carries its `seq`; anything else is not for listeners.
    if (seq === undefined) return;
    const gap = this.sequence.accept(seq);
    if (gap === "duplicate") return;
    if (gap > 0) this.listeners.emitLocal("$lost", { reason: "gap", events: gap });
    this.listeners.dispatch(type, data, { type, seq });
  }

  private onConnected(hello: ConnectedEventData): void {
    clearTimeout(this.connectTimer);
    const previous = this.hello?.clientId;
    const forgotten = previous !== undefined && !hello.resumed;
    this.hello = hello;
    this.phase = "open";
    this.reconnects?.opened();
    if (forgotten) {
      // A new logical client: answers to what the old one was asked can never come, and it has no subscriptions.
      this.sequence.reset();
      this.requests.failSentTo(
        previous,
        (requestId, method) =>
          new BridgeError(CLIENT_ERROR_CODES.CONNECTION_LOST, `${method} was lost: the bridge no longer knew this client`, {
            requestId,
            method,
            retryable: true,
            details: { outcome: "unknown" },
          }),
      );
      this.listeners.subscriptions.forgetServerState();
    }
    this.sequence.startReplay(hello.resumed ? (hello.replayed ?? 0) : 0, hello.resumed ? (hello.lost ?? 0) : 0);
    this.requests.pump();
    const resynced = this.listeners.subscriptions.resync();
    // Tell the app to re-read state only once its subscriptions are back, so nothing falls between.
    if (forgotten) void resynced.then(() => this.listeners.emitLocal("$lost", { reason: "new-client", events: undefined }));
    for (const waiter of this.readyWaiters.splice(0)) waiter.resolve(hello);
    this.listeners.emitLocal("$open", hello);
  }

  private reportReplayLoss(): void {
    const notice = this.sequence.takeReplayLoss();
    if (notice !== undefined) this.listeners.emitLocal("$lost", notice);
  }

  private onSocketClose(socket: WebSocketLike, code: number, reason: string): void {
    if (this.socket !== socket) return;
    this.socket = null;
    clearTimeout(this.connectTimer);
    socket.onmessage = null;
    socket.onclose = null;
    const cut = this.binaryAnswers.reset();
    if (cut !== undefined) this.requests.answer(cut);
    if (this.phase === "closed") return;
    // Sent requests stay pending (and counted): a resumed client gets their answers replayed.
    const wasOpen = this.phase === "open";
    if (this.hello === undefined) {
      // Why the first connection failed: the bridge's refusal, or what `/status` answers (e.g. 401; `/health` may be
      // open to anyone and would not tell).
      const failed = this.refusal !== undefined ? Promise.resolve(this.refusal) : connectFailure(this.wsUrl, code, reason, () => this.status());
      void failed.then((error) => this.finish(error, null));
      return;
    }
    if (isFinalClose(code, this.refusal) || this.reconnects === null) {
      this.finish(this.refusal ?? closedBy(code, reason), { code, reason });
      return;
    }
    this.phase = "reconnecting";
    if (code === CLOSE_CODES.POLICY_VIOLATION) this.reconnects.closedForFlooding();
    if (wasOpen) this.listeners.emitLocal("$close", { code, reason, willReconnect: true });
    const next = this.reconnects.next(() => {
      if (this.phase === "reconnecting") this.openSocket();
    });
    if (next === undefined) this.finish(gaveUp(this.reconnects.maxAttempts, code), null);
    else this.listeners.emitLocal("$reconnecting", next);
  }

  /** Ends the connection for good: everything waiting fails with `error`. */
  private finish(error: BridgeError, closed: { code: number; reason: string } | null): void {
    if (this.phase === "closed") return;
    this.phase = "closed";
    this.finalError = error;
    clearTimeout(this.connectTimer);
    this.reconnects?.stop();
    this.requests.failAll((requestId, method, sent) => requestError(error, requestId, method, sent));
    for (const waiter of this.readyWaiters.splice(0)) waiter.reject(error);
    this.listeners.subscriptions.rejectAll(error);
    // Only a connection that once opened announces its end; a first failure rejects `ready()` instead.
    if (this.hello !== undefined) {
      this.listeners.emitLocal("$close", { code: closed?.code ?? 1006, reason: closed?.reason ?? error.message, willReconnect: false });
    }
  }
}
