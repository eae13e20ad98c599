/*
 * The bridge's editors, their pool (and its cluster membership), and the limits that depend on how many there are:
 * the embedded editors' memory cap and budget are shares of the machine's memory.
 */
import type { Dispatcher, DispatcherOptions } from "../calls/dispatcher.js";
import { EditorPool, MAX_EDITORS } from "../actors/editors/pool.js";
import { clusterRouter } from "../actors/editors/route.js";
import { CLUSTER_LANE_PREFIX } from "../cluster/calls.js";
import { ClusterNode } from "../cluster/node.js";
import { checkClusterOptions } from "../cluster/members.js";
import type { SessionClaim } from "../cluster/sessions.js";
import type { ClientRegistry } from "../actors/clients/registry.js";
import type { BridgeServices } from "../methods/index.js";
import type { BridgeOptions } from "./options.js";
import type { FileAccess } from "../files/index.js";
import { createEmbeddedHost } from "../hosts/embedded/index.js";
import { createNoEditorHost } from "../hosts/none.js";
import type { HostAdapter } from "../hosts/host.js";
import { createIsolatedEmbeddedHost } from "../hosts/isolated/index.js";
import { resolveLimits, type Limits } from "../limits.js";
import type { Logger } from "../logger.js";
import { BridgeError } from "../protocol/index.js";

/**
 * The limits in force for these options: the editors' memory derived for their number unless given.
 * @throws BridgeError `BAD_REQUEST` when the editors' memory budget is not below their memory cap.
 */
export function bridgeLimits(options: BridgeOptions): Limits {
  const editors = options.hosts?.length ?? (options.host === undefined ? (options.editors ?? 1) : 1);
  // A front door (no editors) shares nothing out: its limits are those of one editor.
  const limits = resolveLimits(options.limits, Math.max(1, editors));
  if (limits.editorMemoryBudgetBytes >= limits.editorMaxMemoryBytes) {
    throw new BridgeError(
      "BAD_REQUEST",
      `editorMemoryBudgetBytes (${limits.editorMemoryBudgetBytes}) must be below editorMaxMemoryBytes (${limits.editorMaxMemoryBytes}): ` +
        "past the cap the editor is killed, so the budget must refuse work before it",
      { details: { limit: "editorMemoryBudgetBytes", budgetBytes: limits.editorMemoryBudgetBytes, maxMemoryBytes: limits.editorMaxMemoryBytes } },
    );
  }
  return limits;
}

/** The editors of the bridge: `hosts`, or `host`, or `editors` embedded editors (one by default). */
export function editorHosts(options: BridgeOptions, log: Logger, files: FileAccess, limits: Limits): HostAdapter[] {
  if (options.hosts !== undefined && options.host !== undefined) throw new BridgeError("BAD_REQUEST", "Give either host or hosts, not both");
  const given = options.hosts ?? (options.host === undefined ? undefined : [options.host]);
  if (given !== undefined) return given;
  const count = options.editors ?? 1;
  // None at all: a cluster's front door, whose calls all go to other bridges' editors.
  if (count === 0 && options.cluster !== undefined) return [];
  if (!Number.isInteger(count) || count < 1 || count > MAX_EDITORS) {
    const front = count === 0 ? " (0, a front door with no editor of its own, only in a cluster: give cluster servers too)" : "";
    throw new BridgeError("BAD_REQUEST", `editors must be an integer from 1 to ${MAX_EDITORS}, got ${count}${front}`);
  }
  const { isolation = "process", ...embedded } = options.embedded ?? {};
  return Array.from({ length: count }, (_, i) => {
    const logger = log.child({ actor: "host", editorId: `embedded-${i + 1}` });
    // The sample document and `--open` go to the first editor only.
    const own = {
      maxDocumentPixels: limits.maxDocumentPixels,
      memoryBudgetBytes: limits.editorMemoryBudgetBytes,
      historySteps: limits.editorHistorySteps,
      historyBudgetPercent: limits.editorHistoryBudgetPercent,
      ...embedded,
      logger,
      files,
      ...(i === 0 ? {} : { sample: false, open: undefined }),
    };
    if (isolation === "inline") return createEmbeddedHost(own);
    return createIsolatedEmbeddedHost({
      ...own,
      killGraceMs: limits.editorKillGraceMs,
      maxMemoryBytes: limits.editorMaxMemoryBytes,
      recovery: { intervalMs: limits.editorRecoveryIntervalMs, settleMs: limits.editorRecoverySettleMs, maxBytes: limits.editorRecoveryMaxBytes },
    });
  });
}


/**
 * The pool of the bridge's editors, and its cluster membership when `options.cluster` is set: editor ids then end
 * with `@<bridge>` and document ids come from the bridge's cluster slot, so both are unique cluster-wide.
 */
export function editorPool(options: BridgeOptions, hosts: readonly HostAdapter[], limits: Limits, log: Logger): { pool: EditorPool; cluster: ClusterNode | undefined } {
  if (options.cluster === undefined) return { pool: new EditorPool(hosts, limits, log), cluster: undefined };
  const { bridge } = checkClusterOptions(options.cluster);
  const pool = new EditorPool(hosts, limits, log, `@${bridge}`, hosts.length === 0 ? createNoEditorHost() : undefined);
  const cluster = new ClusterNode({ ...options.cluster, bridge }, limits, log.child({ actor: "cluster" }), {
    editors: () => pool.summaries(),
    remoteClients: () => pool.remoteClients,
    events: (editor, type) => (pool.has(editor) ? pool.get(editor).bus.stream(type) : undefined),
    claimed: (slot) => pool.useIdRange(slot),
  });
  pool.elsewhere = (what) => cluster.holder(what);
  pool.remoteEvents = (bridge, editor, type) => cluster.remoteEvents(bridge, editor, type);
  pool.remoteEditors = () => cluster.remoteEditors();
  pool.countedEvents = (editor, type) => cluster.localEvents(editor, type);
  pool.remoteWide = (type) => cluster.wideEvents(type);
  pool.forwarding = true;
  return { pool, cluster };
}

/**
 * The dispatcher's side of a cluster: where calls go (`route`, which knows a call another bridge sent by its lane);
 * calls for other bridges leave through `forward`; calls other bridges send here run through `dispatcher` as a
 * client of this bridge would, each calling client in a lane of its own.
 */
export function clusterCalls(
  cluster: ClusterNode | undefined,
  pool: EditorPool,
  log: Logger,
): {
  route: DispatcherOptions["route"];
  remote: DispatcherOptions["remote"];
  serve(dispatcher: Dispatcher): void;
} {
  if (cluster === undefined) return { route: undefined, remote: undefined, serve: () => {} };
  return {
    route: clusterRouter(pool, log, (lane) => lane.startsWith(CLUSTER_LANE_PREFIX)),
    remote: (bridge, call, cancel, progress) => cluster.forward(bridge, call, cancel, progress),
    serve: (dispatcher) =>
      cluster.serveCalls((call) =>
        dispatcher.call({ lane: `${CLUSTER_LANE_PREFIX}${call.from}:${call.lane}`, client: null, endpoint: "root", editorId: call.editor }, call.method, call.params, call.parts, {
          cancel: call.signal,
          progress: call.progress,
        }),
      ),
  };
}

/**
 * Resumes on this bridge a logical client another bridge of the cluster holds or held (`?resume=` of an id this
 * bridge does not have): the session is handed over or recovered, its subscriptions made again here, its missed
 * events queued for replay, and, when its editor went away with its bridge, a new editor given with
 * `editor:changed`. Resolves with a refusal to answer instead, or undefined (then the resume goes on as on one
 * bridge: found, or a new client).
 */
export function clusterResume(
  cluster: ClusterNode | undefined,
  clients: ClientRegistry,
  pool: EditorPool,
  eventStream: BridgeServices["eventStream"],
): ((id: string, endpoint: string, takeover: boolean) => Promise<BridgeError | undefined>) | undefined {
  if (cluster === undefined) return undefined;
  cluster.serveSessions(() => clients.list());
  return async (id, endpoint, takeover) => {
    let claim: SessionClaim;
    try {
      claim = await cluster.claimSession(id, endpoint, takeover);
    } catch (error) {
      if (error instanceof BridgeError) return error;
      throw error;
    }
    if (!claim.found || clients.find(id, endpoint) !== undefined) return undefined;
    if (!clients.reserve()) return new BridgeError("HOST_BUSY", `The bridge already serves ${clients.limit} clients`, { details: { limit: clients.limit } });
    const { session, events } = claim;
    const kept = session.editor !== undefined && pool.refusal(session.editor) === null ? session.editor : undefined;
    const client = clients.adopt(id, endpoint, session.name, kept);
    client.restore(session);
    for (const event of events) client.deliverEvent(event);
    if (session.editor !== undefined && kept === undefined && client.editorId !== undefined) {
      const bridge = session.editor.includes("@") ? session.editor.slice(session.editor.lastIndexOf("@") + 1) : claim.from;
      client.moveTo({ from: session.editor, to: client.editorId!, reason: "bridge-gone", bridge });
    }
    for (const type of session.subscriptions) {
      const stream = eventStream(endpoint, type, client.editorId);
      if (stream !== undefined) client.subscribe(type, stream);
    }
    return undefined;
  };
}
