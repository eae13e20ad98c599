/*
 * The plugin side of worker isolation: runs in a worker thread, imports the plugin module there and gives its
 * `setup` the same `ctx` as in-process. Registrations are checked here by the same code as in-process and sent to
 * the bridge as names; params are validated here (Standard Schema validators cannot cross); calls, hooks, events,
 * logs and `ctx.bridge.invoke/on` cross as messages.
 */
import { pathToFileURL } from "node:url";
import { parentPort, workerData } from "node:worker_threads";
import { EMPTY } from "rxjs";
import type { Logger } from "../../logger.js";
import type { PluginDefinition, PluginHooks } from "../api.js";
import { shareBridgeModules } from "../_internal/imports.js";
import { routePath } from "../_internal/route-pattern.js";
import { runSetup, type Staged } from "../registration.js";
import { definitionOf, isDefinition, issuesToDetails } from "./definition.js";
import { heldBytes, measureOwnMemory } from "./memory.js";
import { messagesOf, Outbox, type Crossing } from "./outbox.js";
import { fromWireError, PLUGIN_INIT_ENV, toWireError, type CallKind, type FromWorker, type ToWorker, type WireRouteResult, type WorkerInit } from "./protocol.js";

/** The way to the bridge: a worker's parent port, or a child process's IPC channel (`isolation: "process"`). */
interface Port {
  postMessage(message: Crossing<FromWorker>, transfer?: ArrayBuffer[]): void;
  on(event: "message", listener: (message: Crossing<ToWorker>) => void): void;
}

function processPort(): Port {
  const send = process.send?.bind(process);
  if (send === undefined) throw new Error("the plugin entry runs in a worker thread or a child process with IPC only");
  // The bridge went away: nothing may keep running behind it.
  process.on("disconnect", () => process.exit(0));
  return { postMessage: (message) => void send(message), on: (_event, listener) => void process.on("message", listener as (m: unknown) => void) };
}

const port: Port = parentPort ?? processPort();
const init = (parentPort !== null ? workerData : JSON.parse(process.env[PLUGIN_INIT_ENV] ?? "{}")) as WorkerInit;

/** What cannot cross alone: a result answers the refusal instead; an emit, invoke or log throws it to its caller. */
const refused = (message: FromWorker, error: unknown): void => {
  const reason = (error as Error).message;
  if (message.t === "result") {
    // Coded, so the caller reads why (an uncoded failure answers only "failed in method …").
    const refusal = { code: "INTERNAL", message: `The result cannot cross to the bridge: only structured-clone-able values can (${reason})`, details: { reason } };
    port.postMessage({ t: "result", cid: message.cid, ok: false, error: toWireError(refusal) } satisfies FromWorker);
  } else if (message.t === "emit" || message.t === "invoke" || message.t === "log") {
    throw new Error(`${message.t}: the value cannot cross to the bridge (${reason}); only structured-clone-able values can`);
  }
};

/** Results, pongs and the like leave in batches at the end of the turn (see `Outbox`). */
const outbox = new Outbox<FromWorker>((crossing, transfer) => port.postMessage(crossing, transfer), refused);

/**
 * An emit, invoke or log crosses at once, after what is queued before it, so the plugin's own call throws when its
 * value cannot cross, as it would in-process.
 */
const post = (message: FromWorker, transfer?: ArrayBuffer[]): void => {
  if (message.t !== "emit" && message.t !== "invoke" && message.t !== "log") {
    outbox.post(message, transfer);
    return;
  }
  outbox.flush();
  try {
    port.postMessage(message);
  } catch (error) {
    refused(message, error);
  }
};

/** A value as JSON would carry it: log objects often hold things structured clone refuses (functions, sockets). */
function plain(value: unknown): unknown {
  try {
    return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
  } catch {
    return String(value);
  }
}

function makeLogger(bindings: Record<string, unknown> = {}): Logger {
  const at =
    (level: "debug" | "info" | "warn" | "error") =>
    (objOrMsg?: unknown, msg?: string): void => {
      const obj = typeof objOrMsg === "string" ? bindings : { ...bindings, ...(plain(objOrMsg) as object) };
      post({ t: "log", level, obj, msg: typeof objOrMsg === "string" ? objOrMsg : msg });
    };
  const logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), trace: () => {}, fatal: at("error") };
  return { ...logger, child: (more: Record<string, unknown>) => makeLogger({ ...bindings, ...more }) } as unknown as Logger;
}

let definition: PluginDefinition;
let staged: Staged = { methods: new Map(), routes: [], listeners: [] };
let hooks: PluginHooks = {};
const calls = new Map<number, CallSignal>();
const listeners = new Map<number, (data: unknown) => void>();
const invokes = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
let nextId = 1;

function listen(type: string, listener: (data: unknown) => void): () => void {
  const sub = nextId++;
  listeners.set(sub, listener);
  post({ t: "on", sub, type });
  return () => {
    if (listeners.delete(sub)) post({ t: "off", sub });
  };
}

/** Sets the plugin up in this worker and tells the bridge what it registered, or why it failed. */
async function setUp(config: Readonly<Record<string, unknown>>): Promise<void> {
  try {
    hooks = await runSetup(
      definition,
      {
        id: definition.id,
        config,
        log: makeLogger(),
        emit: (type, data) => post({ t: "emit", type, data }),
        invoke: (method, params, options) =>
          new Promise((resolve, reject) => {
            const iid = nextId++;
            invokes.set(iid, { resolve, reject });
            post({ t: "invoke", iid, method, params, options });
          }),
        // Only whether the type exists matters here; events arrive as messages (`listen`).
        mainStream: (type) => (type.startsWith("#") || init.mainTypes.includes(type) ? EMPTY : undefined),
        mainTypes: () => init.mainTypes,
        listen,
      },
      staged,
    );
  } catch (error) {
    post({ t: "setup-failed", error: toWireError(error) });
    return;
  }
  // Listeners staged during setup become live now, setup having succeeded (atomic registration, as in-process).
  for (const { type, listener } of staged.listeners) listen(type, listener);
  post({
    t: "registered",
    registration: {
      methods: [...staged.methods.keys()],
      routes: staged.routes.map((r) => ({ verb: r.verb, path: routePath(r.pattern) })),
      hooks: (["onConnect", "onDisconnect", "onDispose"] as const).filter((name) => typeof hooks[name] === "function"),
    },
  });
}

async function runCall(work: CallKind, lazy: CallSignal): Promise<unknown> {
  if (work.kind === "hook") {
    const hook = hooks[work.name] as ((info: unknown) => unknown) | undefined;
    return hook?.call(hooks, work.info);
  }
  if (work.kind === "route") {
    const route = staged.routes[work.index];
    if (route === undefined) throw new Error(`no route #${work.index}`);
    const { request } = work;
    const value = await route.handler({ ...request, headers: new Headers(request.headers), signal: lazy.signal });
    if (value instanceof Response) {
      const body = value.body === null ? null : await value.arrayBuffer();
      return { response: { status: value.status, headers: [...value.headers], body } } satisfies WireRouteResult;
    }
    return { value } satisfies WireRouteResult;
  }
  const entry = staged.methods.get(work.name);
  if (entry === undefined) throw { code: "UNKNOWN_METHOD", message: `Unknown method "${work.name}"`, details: { method: work.name } };
  let params = work.params;
  if (entry.schema !== undefined) {
    const result = await entry.schema["~standard"].validate(params ?? {});
    if (result.issues !== undefined) {
      throw { code: "BAD_REQUEST", message: `Invalid params for ${work.name}`, details: { issues: issuesToDetails(result.issues) } };
    }
    params = result.value;
  }
  const { clientId, endpoint } = work.call;
  return entry.handler(params, {
    clientId,
    endpoint,
    get signal() {
      return lazy.signal;
    },
  });
}

/** A call's signal, made only when its handler reads it (most never do); an abort before that is remembered. */
class CallSignal {
  private controller: AbortController | undefined;
  private aborted = false;

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  abort(): void {
    this.aborted = true;
    this.controller?.abort();
  }
}

/** Runs a call and posts its result (a route's body is transferred, not copied). */
async function answer(message: Extract<ToWorker, { t: "call" }>): Promise<void> {
  const { cid } = message;
  const signal = new CallSignal();
  calls.set(cid, signal);
  try {
    const value = await runCall(message, signal);
    const transfer = (value as { response?: { body: ArrayBuffer | null } } | undefined)?.response?.body;
    post({ t: "result", cid, ok: true, value }, transfer ? [transfer] : undefined);
  } catch (error) {
    post({ t: "result", cid, ok: false, error: toWireError(error) });
  } finally {
    calls.delete(cid);
  }
}

function onMessage(message: ToWorker): void {
  switch (message.t) {
    case "setup":
      void setUp(message.config);
      return;
    case "call":
      void answer(message);
      return;
    case "abort":
      calls.get(message.cid)?.abort();
      calls.delete(message.cid);
      return;
    case "ping":
      post({ t: "pong", n: message.n, memory: measureOwnMemory() });
      return;
    case "event": {
      const listener = listeners.get(message.sub);
      if (listener === undefined) return;
      Promise.resolve()
        .then(() => listener(message.data))
        .catch((error: unknown) => post({ t: "hook-failed", phase: "event", reason: toWireError(error).message }));
      return;
    }
    case "invoked": {
      const pending = invokes.get(message.iid);
      invokes.delete(message.iid);
      if (message.ok) pending?.resolve(message.value);
      else pending?.reject(fromWireError(message.error));
      return;
    }
  }
}

async function load(): Promise<void> {
  let mod: Record<string, unknown>;
  try {
    shareBridgeModules();
    mod = (await import(pathToFileURL(init.entry).href)) as Record<string, unknown>;
  } catch (error) {
    post({ t: "load-failed", phase: "import", reason: error instanceof Error ? error.message : String(error) });
    return;
  }
  const value = definitionOf(mod);
  if (!isDefinition(value)) {
    post({ t: "load-failed", phase: "definition", reason: "the default export is not a plugin definition (definePlugin({ id, setup }) with a setup function)" });
    return;
  }
  definition = value;
  staged = { methods: new Map(), routes: [], listeners: [] };
  port.on("message", (crossing) => {
    for (const message of messagesOf(crossing)) onMessage(message);
  });
  post({ t: "loaded", id: value.id, events: plain(value.events) });
}

/**
 * Between the bridge's pings, the plugin reads what it holds on its own timer, so a plugin filling `Buffer`s from
 * asynchronous code is stopped within one sample of passing the cap. A worker thread reports every sample (its
 * silence tells the bridge it is blocked, see `WorkerLink`); a process only when past the cap, as the bridge reads
 * its resident memory itself.
 */
const sampler = setInterval(() => {
  const memory = measureOwnMemory();
  if (init.mode === "worker" || heldBytes(init.mode, memory) > init.maxMemoryBytes) post({ t: "memory", memory });
}, init.memorySampleMs);
sampler.unref();

void load();

