/*
 * `GET /metrics`: the bridge's Prometheus metrics on a registry of its own (several bridges share a test process),
 * and the recent-calls summary `GET /status` shows. Calls are counted as they finish (a histogram child looked up
 * without allocating); queue, client and plugin gauges are read from their owners when scraped.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from "prom-client";
import { ERROR_CODES, type RecentCalls } from "../protocol/index.js";
import type { DeliveryCounts } from "../actors/clients/client.js";
import { RecentCallsRing } from "./recent-calls.js";
import { LeanHistogram, type HistogramSeries } from "./lean-histogram.js";

/** Request durations in seconds: from a cached read (ms) to a long export (minutes). */
export const REQUEST_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** Time a call waits in an editor's queue, in seconds: none when idle, up to a call timeout when backed up. */
export const QUEUE_WAIT_BUCKETS = [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];

/**
 * Error codes outside the bridge's own that get their own label (plugins may throw any string code): past this
 * many, further ones count as `OTHER`, so a plugin cannot grow the label set without bound.
 */
export const MAX_FOREIGN_ERROR_CODES = 32;

/** Editor states `bridge_editor_state` has a series for (1 for the current one, 0 for the others). */
const EDITOR_STATES = ["disconnected", "connecting", "backoff", "ready", "busy", "closing", "closed"] as const;

/** Where a call came from: `transport` label of the request metrics. */
export type CallTransport = "ws" | "http" | "plugin" | "internal";

/** The socket accounting of the bridge's HTTP server (HTTP and WebSocket alike), as `GET /status` shows it. */
export interface ConnectionTally {
  /** Sockets open now. */
  readonly open: number;
  /** `maxConnections`. */
  readonly max: number;
  /** `connectionReserve`: sockets past `max - reserve` may only ask for the operator paths. */
  readonly reserve: number;
  readonly refusedFull: number;
  readonly refusedReserve: number;
  readonly refusedPerAddress: number;
  readonly idleClosed: number;
  readonly silentEvicted: number;
}

/** What the scrape-time gauges read. */
export interface MetricsSources {
  editors(): ReadonlyArray<{ readonly id: string; readonly state: string; readonly queued: number; readonly running: number; readonly restarts: number }>;
  clients(): Iterable<{ readonly state: string; readonly delivery: Readonly<DeliveryCounts>; subscriptionTypes(): readonly string[] }>;
  /** Every plugin the bridge knows, loaded or not: `ok` false when it failed to load or fails a health check. */
  plugins(): ReadonlyArray<{ readonly id: string; readonly ok: boolean }>;
  /** The webhooks' totals since start, and how many there are by state. @default none */
  webhooks?(): { readonly delivered: number; readonly failed: number; readonly dropped: number; readonly bodiesCut: number; readonly enabled: number; readonly disabled: number };
  /** The server's socket accounting; undefined until it listens. @default none */
  connections?(): ConnectionTally | undefined;
  /** Server-sent event streams open now (each holds one HTTP socket). @default none */
  eventStreams?(): { readonly open: number };
  /** Each editor's memory budget and use, for editors that keep one. @default none */
  editorMemory?(): ReadonlyArray<{ readonly id: string; readonly usedBytes: number; readonly budgetBytes: number }>;
}

/**
 * The metrics of one bridge. Create it, hand it the {@link MetricsSources} once they exist (`observe`), count calls
 * with `recordCall`, and render with `render()`.
 *
 * @example
 * const metrics = new Metrics();
 * metrics.recordCall("document:list", "ws", "embedded-1", 3.2, undefined);
 * const text = await metrics.render();
 */
export class Metrics {
  /** This bridge's registry: never the global one. */
  readonly registry = new Registry();
  private readonly duration: LeanHistogram;
  private readonly errors: Counter<"method" | "code">;
  private readonly queueWait: LeanHistogram;
  /** method → transport → editor → histogram series: no label object is built on the request path. */
  private readonly children = new Map<string, Map<string, Map<string, HistogramSeries>>>();
  /** editor → its queue-wait series. */
  private readonly waits = new Map<string, HistogramSeries>();
  private readonly foreignCodes = new Set<string>();
  private readonly recent = new RecentCallsRing();
  /** Delivery counts of disposed clients, so the counters never go down when a client goes. */
  private readonly retired: DeliveryCounts = { delivered: 0, coalesced: 0, slowCloses: 0 };
  private processMetrics = false;

  constructor() {
    const registers = [this.registry];
    this.duration = new LeanHistogram(
      "bridge_request_duration_seconds",
      "Time from a request reaching the dispatcher to its answer, by method, transport and editor (none: a call no editor runs).",
      ["method", "transport", "editor"],
      REQUEST_DURATION_BUCKETS,
    );
    this.registry.registerMetric(this.duration as unknown as Metric);
    this.errors = new Counter({ name: "bridge_errors_total", help: "Failed requests by method and error code.", labelNames: ["method", "code"], registers });
    this.queueWait = new LeanHistogram("bridge_editor_queue_wait_seconds", "Time calls waited in an editor's queue before they started.", ["editor"], QUEUE_WAIT_BUCKETS);
    this.registry.registerMetric(this.queueWait as unknown as Metric);
  }

  /**
   * Counts one finished call. `method` is already bounded (unknown names collapse into one); `editor` is the editor
   * it was sent to, `"all"` for a call run on every editor, `"none"` for one that reached no editor.
   */
  recordCall(method: string, transport: CallTransport, editor: string, elapsedMs: number, errorCode: string | undefined): void {
    this.child(method, transport, editor).observe(elapsedMs / 1000);
    if (errorCode !== undefined) this.errors.inc({ method, code: this.codeLabel(errorCode) });
    this.recent.record(elapsedMs, errorCode !== undefined);
  }

  /** Counts how long a call waited in `editor`'s queue. */
  recordQueueWait(editor: string, waitMs: number): void {
    let series = this.waits.get(editor);
    if (series === undefined) {
      series = this.queueWait.child(editor);
      this.waits.set(editor, series);
    }
    series.observe(Math.max(0, waitMs) / 1000);
  }

  /** Adds a disposed client's delivery counts to the totals. */
  retireClient(delivery: Readonly<DeliveryCounts>): void {
    this.retired.delivered += delivery.delivered;
    this.retired.coalesced += delivery.coalesced;
    this.retired.slowCloses += delivery.slowCloses;
  }

  /** The calls of the last five minutes in ten-second buckets, for `/status`. */
  recentCalls(): RecentCalls {
    return this.recent.summary();
  }

  /** Registers the gauges read at scrape time from the bridge's editors, clients and plugins. Call once. */
  observe(sources: MetricsSources): void {
    const registers = [this.registry];
    const editors = (): ReturnType<MetricsSources["editors"]> => sources.editors();
    new Gauge({
      name: "bridge_editors",
      help: "Editors of the bridge.",
      registers,
      collect() {
        this.set(editors().length);
      },
    });
    new Gauge({
      name: "bridge_editors_ready",
      help: "Editors taking calls (ready or busy).",
      registers,
      collect() {
        this.set(editors().filter((e) => e.state === "ready" || e.state === "busy").length);
      },
    });
    perEditor(registers, "bridge_editor_queue_depth", "Calls waiting in an editor's queue.", editors, (e) => e.queued);
    perEditor(registers, "bridge_editor_running_calls", "Calls an editor is running.", editors, (e) => e.running);
    const memory = (): ReturnType<NonNullable<MetricsSources["editorMemory"]>> => sources.editorMemory?.() ?? [];
    perEditor(registers, "bridge_editor_memory_used_bytes", "Memory charged to an editor's budget: documents, calls running, the model.", memory, (e) => e.usedBytes);
    perEditor(registers, "bridge_editor_memory_budget_bytes", "An editor's memory budget (editorMemoryBudgetBytes).", memory, (e) => e.budgetBytes);
    new Counter({
      name: "bridge_editor_restarts_total",
      help: "Times an editor was lost and started again.",
      labelNames: ["editor"],
      registers,
      collect() {
        this.reset();
        for (const e of editors()) this.labels(e.id).inc(e.restarts);
      },
    });
    new Gauge({
      name: "bridge_editor_state",
      help: "An editor's connection state: 1 for the state it is in, 0 for the others.",
      labelNames: ["editor", "state"],
      registers,
      collect() {
        this.reset();
        for (const e of editors()) for (const state of EDITOR_STATES) this.labels(e.id, state).set(e.state === state ? 1 : 0);
      },
    });
    new Gauge({
      name: "bridge_clients",
      help: "Logical clients by state: attached (a socket is open) or detached (resumable, waiting for its client).",
      labelNames: ["state"],
      registers,
      collect() {
        let attached = 0;
        let detached = 0;
        for (const client of sources.clients()) {
          if (client.state === "attached") attached++;
          else if (client.state === "detached") detached++;
        }
        this.labels("attached").set(attached);
        this.labels("detached").set(detached);
      },
    });
    new Gauge({
      name: "bridge_subscriptions",
      help: "Event subscriptions of all logical clients.",
      registers,
      collect() {
        let n = 0;
        for (const client of sources.clients()) n += client.subscriptionTypes().length;
        this.set(n);
      },
    });
    const total = (pick: (counts: Readonly<DeliveryCounts>) => number): number => {
      let n = pick(this.retired);
      for (const client of sources.clients()) n += pick(client.delivery);
      return n;
    };
    summed(registers, "bridge_events_delivered_total", "Event frames written to clients or kept for their replay.", () => total((c) => c.delivered));
    summed(
      registers,
      "bridge_events_coalesced_total",
      "State events dropped for a newer one of the same type while a client's socket was backed up.",
      () => total((c) => c.coalesced),
    );
    summed(registers, "bridge_slow_consumer_closes_total", "Sockets closed (4008) because their client read too slowly.", () => total((c) => c.slowCloses));
    const webhooks = sources.webhooks;
    if (webhooks !== undefined) {
      summed(registers, "bridge_webhook_deliveries_total", "Webhook deliveries a receiver accepted (a 2xx answer).", () => webhooks().delivered);
      summed(registers, "bridge_webhook_failed_attempts_total", "Webhook delivery attempts that failed (no answer in time, an error status, a redirect).", () => webhooks().failed);
      summed(registers, "bridge_webhook_dropped_total", "Webhook deliveries dropped unsent because a webhook's queue was full.", () => webhooks().dropped);
      summed(
        registers,
        "bridge_webhook_response_bodies_cut_total",
        "Webhook answers whose body went past webhookResponseBodyBytes: cut there, the rest never read.",
        () => webhooks().bodiesCut,
      );
      new Gauge({
        name: "bridge_webhooks",
        help: "Webhooks by state: enabled, or disabled after a run of failed deliveries.",
        labelNames: ["state"],
        registers,
        collect() {
          const { enabled, disabled } = webhooks();
          this.labels("enabled").set(enabled);
          this.labels("disabled").set(disabled);
        },
      });
    }
    const connections = sources.connections;
    if (connections !== undefined) observeConnections(registers, connections, sources);
    new Gauge({
      name: "bridge_plugin_up",
      help: "Plugin health: 1 when loaded and passing its health checks, 0 when it failed to load or fails one.",
      labelNames: ["plugin"],
      registers,
      collect() {
        this.reset();
        for (const plugin of sources.plugins()) this.labels(plugin.id).set(plugin.ok ? 1 : 0);
      },
    });
  }

  /** The Prometheus text exposition of every metric, process metrics included. */
  render(): Promise<string> {
    // Process metrics start with the first scrape: a bridge nobody scrapes pays nothing for them.
    if (!this.processMetrics) {
      this.processMetrics = true;
      collectDefaultMetrics({ register: this.registry });
    }
    return this.registry.metrics();
  }

  /** The content type of {@link render}'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }

  private child(method: string, transport: string, editor: string): HistogramSeries {
    let byTransport = this.children.get(method);
    if (byTransport === undefined) {
      byTransport = new Map();
      this.children.set(method, byTransport);
    }
    let byEditor = byTransport.get(transport);
    if (byEditor === undefined) {
      byEditor = new Map();
      byTransport.set(transport, byEditor);
    }
    let child = byEditor.get(editor);
    if (child === undefined) {
      child = this.duration.child(method, transport, editor);
      byEditor.set(editor, child);
    }
    return child;
  }

  private codeLabel(code: string): string {
    if (Object.hasOwn(ERROR_CODES, code) || this.foreignCodes.has(code)) return code;
    if (this.foreignCodes.size >= MAX_FOREIGN_ERROR_CODES) return "OTHER";
    this.foreignCodes.add(code);
    return code;
  }
}

/**
 * Open sockets by transport, the socket cap, and the sockets refused or closed by the connection limits. The
 * transports are split from the server's one count: `ws` are the sockets attached to a logical client, `sse` the
 * open event streams, and `http` the rest (requests, keep-alive sockets between them, upgrades not yet done).
 */
function observeConnections(registers: Registry[], connections: () => ConnectionTally | undefined, sources: MetricsSources): void {
  new Gauge({
    name: "bridge_connections_open",
    help: "Open sockets by transport: ws (attached to a client), sse (event streams), http (everything else). They sum to the sockets counted against maxConnections.",
    labelNames: ["transport"],
    registers,
    collect() {
      const open = connections()?.open ?? 0;
      let ws = 0;
      for (const client of sources.clients()) if (client.state === "attached") ws++;
      const sse = sources.eventStreams?.().open ?? 0;
      this.labels("ws").set(ws);
      this.labels("sse").set(sse);
      this.labels("http").set(Math.max(0, open - ws - sse));
    },
  });
  new Gauge({
    name: "bridge_connections_limit",
    help: "The socket cap (maxConnections) and the part of it kept for /health, /ready, /status and /metrics (connectionReserve).",
    labelNames: ["limit"],
    registers,
    collect() {
      const tally = connections();
      if (tally === undefined) return;
      this.labels("maxConnections").set(tally.max);
      this.labels("connectionReserve").set(tally.reserve);
    },
  });
  new Counter({
    name: "bridge_connections_refused_total",
    help: "Sockets or requests refused by the connection limits: full (503, past maxConnections), reserve (503, inside the reserve and not an operator path), per_address (429, past maxConnectionsPerAddress).",
    labelNames: ["reason"],
    registers,
    collect() {
      const tally = connections();
      this.reset();
      this.labels("full").inc(tally?.refusedFull ?? 0);
      this.labels("reserve").inc(tally?.refusedReserve ?? 0);
      this.labels("per_address").inc(tally?.refusedPerAddress ?? 0);
    },
  });
  new Counter({
    name: "bridge_connections_closed_total",
    help: "Sockets the bridge closed for saying nothing: idle (no request or upgrade within idleConnectionMs), evicted (the oldest silent socket, to make room at the cap).",
    labelNames: ["reason"],
    registers,
    collect() {
      const tally = connections();
      this.reset();
      this.labels("idle").inc(tally?.idleClosed ?? 0);
      this.labels("evicted").inc(tally?.silentEvicted ?? 0);
    },
  });
}

/** A gauge with one series per editor, read when scraped. */
function perEditor<E extends { readonly id: string }>(
  registers: Registry[],
  name: string,
  help: string,
  editors: () => readonly E[],
  pick: (editor: E) => number,
): void {
  new Gauge({
    name,
    help,
    labelNames: ["editor"],
    registers,
    collect() {
      this.reset();
      for (const editor of editors()) this.labels(editor.id).set(pick(editor));
    },
  });
}

/** A counter whose total is summed from its owners when scraped (it only grows: disposed owners stay counted). */
function summed(registers: Registry[], name: string, help: string, read: () => number): void {
  new Counter({
    name,
    help,
    registers,
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}
