/*
 * The bridge's start and close sequences, in the order each part needs the others, run by the lifecycle machine
 * (`lifecycle.machine.ts`): `createBridge` only makes the parts.
 */
import { setImmediate as nextTick } from "node:timers/promises";
import { createActor, fromPromise, waitFor, type Actor } from "xstate";
import type { ClientRegistry } from "../actors/clients/registry.js";
import type { EditorPool } from "../actors/editors/pool.js";
import type { ClusterNode } from "../cluster/node.js";
import type { EventBus } from "../events/bus.js";
import type { EventLog } from "../events/log.js";
import type { ConfiguredWebhook, WebhookRegistry } from "../events/webhooks.js";
import type { Logger } from "../logger.js";
import type { McpHttp } from "../mcp/index.js";
import type { PluginHost } from "../plugins/index.js";
import { BridgeError, type ClosingReason, } from "../protocol/index.js";
import type { Listener } from "../transports/listener.js";
import { lifecycleMachine } from "./lifecycle.machine.js";

/** The parts the sequences start and close, and how to open the port once they run. */
export interface LifecycleParts {
  readonly log: Logger;
  readonly shutdownGraceMs: number;
  readonly cluster: ClusterNode | undefined;
  readonly pool: EditorPool;
  readonly plugins: PluginHost;
  readonly webhooks: WebhookRegistry;
  /** The operator's webhooks, registered at start. */
  readonly hooks: readonly ConfiguredWebhook[];
  readonly eventLog: EventLog;
  readonly mcp: McpHttp | undefined;
  readonly clients: ClientRegistry;
  /** Bridge-wide events (`#ready`, `#closing`). */
  readonly bus: EventBus;
  /** Checks made before anything starts (a files root that does not exist). */
  prepare(): Promise<void>;
  /** Opens the port, once every part serves. */
  listen(): Promise<Listener>;
  /** The bridge's editor kind, for the log line. */
  readonly editorKind: string;
  /** The bridge's URL on a port, for the log line. */
  url(port: number): string;
}

/** Starts in dependency order, the port last; on failure, `abandon` undoes it. */
async function startSequence(parts: LifecycleParts): Promise<Listener> {
  await parts.prepare();
  // Joined first, so documents get ids of this bridge's cluster range; NATS down delays this (bounded) only.
  await parts.cluster?.start();
  // An editor not reachable yet was logged once by its session and is retried in the background.
  await parts.pool.start();
  // Before listening, so `/plugins`, `getServerInfo` and `#ready` are complete from the first request.
  await parts.plugins.load();
  // The operator's webhooks, then those kept from before a restart: a bad one fails the start.
  await parts.webhooks.load(parts.hooks);
  return parts.listen();
}

/** Undoes a start that failed part-way: everything it may have started is stopped. */
async function abandonSequence(parts: LifecycleParts): Promise<void> {
  parts.webhooks.close();
  parts.eventLog.close();
  await parts.plugins.stop("start-failed");
  await parts.pool.close();
  await parts.cluster?.stop();
}

/**
 * Closes in the reverse order: `#closing` to clients, the editors after their running calls (bounded by
 * `shutdownGraceMs`), the cluster, then sockets, sessions, streams, hooks, clients, plugins and the port.
 */
async function closeSequence(parts: LifecycleParts, listener: Listener | undefined, reason: ClosingReason, wasRunning: boolean): Promise<void> {
  if (wasRunning) parts.bus.emitClosing({ reason });
  await parts.pool.close(parts.shutdownGraceMs);
  await parts.cluster?.stop();
  await nextTick(); // let answers of the last calls reach their sockets before they close
  await listener?.closeSockets();
  await parts.mcp?.close();
  parts.eventLog.close();
  parts.webhooks.close();
  parts.clients.disposeAll();
  await parts.plugins.stop(reason);
  await listener?.close();
}

/** The bridge's lifecycle: `start()` and `close()` as the machine runs them, and whether work is accepted. */
export class Lifecycle {
  private readonly actor: Actor<typeof lifecycleMachine>;
  private listener: Listener | undefined;
  private accepting = false;
  private closed: Promise<void> | undefined;

  constructor(private readonly parts: LifecycleParts) {
    const machine = lifecycleMachine.provide({
      actors: {
        start: fromPromise(async () => {
          this.listener = await startSequence(parts);
        }),
        abandon: fromPromise(() => abandonSequence(parts)),
        close: fromPromise(({ input }) => closeSequence(parts, this.listener, input.reason, input.wasRunning)),
      },
      actions: {
        announce: () => {
          const port = this.listener?.port ?? 0;
          parts.bus.emitReady({ port, plugins: parts.plugins.list() });
          parts.log.info({ actor: "bridge", url: parts.url(port), editor: parts.editorKind }, "bridge listening");
        },
        closeFailed: (_, { error }) => parts.log.error({ actor: "bridge", err: error }, "closing the bridge failed part-way"),
      },
    });
    this.actor = createActor(machine);
    // Mirrored on change: read on every request.
    this.actor.subscribe((snapshot) => {
      this.accepting = snapshot.matches("running");
    });
    this.actor.start();
  }

  /** Whether new work is accepted (only while running). */
  get running(): boolean {
    return this.accepting;
  }

  /** The port's listener once started. */
  get port(): Listener | undefined {
    return this.listener;
  }

  /** Resolves once running (or closed by a `close()` that came during the start); throws why a start failed. */
  async start(): Promise<void> {
    if (!this.actor.getSnapshot().matches("idle")) throw new BridgeError("BAD_REQUEST", "The bridge was already started");
    this.actor.send({ type: "START" });
    const settled = await waitFor(this.actor, (s) => !s.matches("starting") && !s.matches("abandoning"), { timeout: Number.POSITIVE_INFINITY });
    if (settled.context.startError !== undefined) throw settled.context.startError;
  }

  /** Resolves once closed; a second call waits for the same close. */
  close(reason: ClosingReason): Promise<void> {
    this.closed ??= (async () => {
      this.actor.send({ type: "CLOSE", reason });
      await waitFor(this.actor, (s) => s.status === "done", { timeout: Number.POSITIVE_INFINITY });
      this.parts.log.info({ actor: "bridge", reason }, "bridge closed");
    })();
    return this.closed;
  }
}
