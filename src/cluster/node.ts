/*
 * A bridge's membership of a cluster of bridges over NATS. It connects (reconnecting with backoff for as long as
 * the bridge runs), claims a slot in the cluster's JetStream KV bucket of members (which gives the bridge its own
 * range of document ids), announces its editors and their load there every heartbeat, and reads everyone else's.
 * NATS being unreachable never stops the bridge: it serves its own editors and clients and says "degraded".
 *
 * NATS is loaded only here, and only when the bridge is started with a cluster.
 */
import { readFile } from "node:fs/promises";
import type { NatsConnection } from "@nats-io/transport-node";
import type { KV } from "@nats-io/kv";
import type { Observable } from "rxjs";
import { DOCUMENT_ID_RANGE } from "../actors/editors/document-ids.js";
import type { Limits } from "../limits.js";
import type { Logger } from "../logger.js";
import type { ProgressReporter } from "../hosts/host.js";
import type { SerializedEvent } from "../methods/index.js";
import { BridgeError, type ClusterInfo, type EditorSummary, type ReadinessReason } from "../protocol/index.js";
import { PACKAGE } from "../version.js";
import { ClusterCalls, type IncomingCall } from "./calls.js";
import type { ForwardedCall } from "../actors/editors/route.js";
import { ClusterEvents } from "./events.js";
import { ANONYMOUS_CLUSTER_RISK, hasClusterCredentials, type ClusterOptions } from "./options.js";
import { Transfers } from "./transfers.js";
import { ClusterSessions, type SessionClaim } from "./sessions.js";
import { Roster } from "./roster.js";
import type { LogicalClient } from "../actors/clients/client.js";
import type { CancelSignal } from "../actors/clients/requests.js";
import { checkClusterOptions, keyOf, MAX_CLUSTER_BRIDGES, parseMember, type ClusterMember, type ClusterState, type ClusterStatus } from "./members.js";


export interface ClusterNodeSources {
  /** This bridge's editors as `/status` shows them. */
  editors(): EditorSummary[];
  /** This bridge's logical clients working with other bridges' editors, by editor id. */
  remoteClients(): ReadonlyMap<string, number>;
  /** One of this bridge's editors' shared stream of an event type, or undefined. */
  events(editor: string, type: string): Observable<SerializedEvent> | undefined;
  /** Called once, when the bridge has its slot (before any document id of the cluster's ranges is handed out). */
  claimed(slot: number): void;
}

/**
 * One bridge in the cluster. `start()` resolves once connected and in a slot, or after
 * `limits.clusterConnectTimeoutMs` with the bridge degraded and still trying.
 */
export class ClusterNode {
  readonly name: string;
  readonly bridge: string;
  private nc: NatsConnection | undefined;
  private kv: KV | undefined;
  private slot: number | undefined;
  private revision = 0;
  private state: ClusterState = "connecting";
  private problem: string | undefined = "not connected to NATS yet";
  /** The other bridges as last read, and those that went away. */
  private readonly roster: Roster;
  private heartbeat: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  /** The members being read, which later beats do not wait for. */
  private reading: Promise<void> | undefined;
  /** Whether the last beat rewrote this bridge's entry: only then does a good read clear the problem. */
  private refreshed = false;
  private stopped = false;
  private calls: ClusterCalls | undefined;
  private events: ClusterEvents | undefined;
  private transfers: Transfers | undefined;
  private runCall: ((call: IncomingCall) => Promise<unknown>) | undefined;
  private sessions: ClusterSessions | undefined;
  private clients: () => Iterable<LogicalClient> = () => [];
  /** When this bridge started: event numbers restart with it (`EventCursor.epoch`). */
  private readonly epoch = Date.now();

  constructor(
    private readonly options: ClusterOptions,
    private readonly limits: Limits,
    private readonly log: Logger,
    private readonly sources: ClusterNodeSources,
  ) {
    ({ name: this.name, bridge: this.bridge } = checkClusterOptions(options));
    this.roster = new Roster(limits.clusterMemberTtlMs, limits.clusterLostVisibleMs, log);
  }

  /** Connects and joins; never rejects because NATS is down (only for options that cannot work, such as a missing credentials file). */
  async start(): Promise<void> {
    const { connect, credsAuthenticator } = await import("@nats-io/transport-node");
    const { options, limits } = this;
    const creds = options.credsFile === undefined ? undefined : await readFile(options.credsFile);
    if (!hasClusterCredentials(options)) {
      this.log.warn({ servers: options.servers, risk: ANONYMOUS_CLUSTER_RISK }, "joining the cluster's NATS without credentials: give the bridges a NATS account of their own");
    }
    const connecting = connect({
      servers: [...options.servers],
      name: `${PACKAGE.name} ${this.bridge}`,
      ...(options.token !== undefined ? { token: options.token } : {}),
      ...(options.user !== undefined ? { user: options.user, pass: options.pass } : {}),
      ...(creds !== undefined ? { authenticator: credsAuthenticator(new Uint8Array(creds)) } : {}),
      ...(options.tls !== undefined ? { tls: { ...options.tls } } : {}),
      // Keep trying, the first time too: a bridge started before its NATS joins when NATS comes up.
      waitOnFirstConnect: true,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: limits.clusterReconnectWaitMs,
      timeout: limits.clusterConnectTimeoutMs,
    });
    const joined = connecting.then(
      (nc) => this.connected(nc),
      (error: unknown) => this.failed(`cannot connect to NATS: ${String(error)}`),
    );
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, limits.clusterConnectTimeoutMs);
      timer.unref();
    });
    await Promise.race([joined, late]);
    clearTimeout(timer);
    if (this.slot === undefined) this.log.warn({ servers: options.servers, problem: this.problem }, "cluster not joined yet; serving local editors meanwhile");
  }

  status(): ClusterStatus {
    return {
      name: this.name,
      bridge: this.bridge,
      ...(this.slot !== undefined ? { slot: this.slot } : {}),
      state: this.state,
      ...(this.problem !== undefined ? { problem: this.problem } : {}),
      peers: this.roster.members().sort((a, b) => a.slot - b.slot),
      following: this.events?.following() ?? [],
      lost: this.roster.lostBridges(),
    };
  }

  /**
   * Other bridges' editors taking calls, each with its load as last announced: calls queued and running, logical
   * clients (its bridge's, and those of every other bridge working with it), documents.
   */
  remoteEditors(): Array<{ bridge: string; id: string; load: number[] }> {
    if (this.calls === undefined || this.state !== "connected") return [];
    const members = this.roster.members();
    const elsewhere = (id: string): number =>
      members.reduce((n, m) => n + (m.remoteClients?.[id] ?? 0), 0) + (this.sources.remoteClients().get(id) ?? 0);
    return members.flatMap((member) =>
      member.editors
        .filter((e) => e.state === "ready" || e.state === "busy")
        .map((e) => ({ bridge: member.bridge, id: e.id, load: [e.queued + e.running, e.clients + elsewhere(e.id), e.documents] })),
    );
  }

  /** The other bridge holding an editor id (`…@<bridge>`) or a document id (of its slot's range), if a live one does. */
  holder({ editor, documentId }: { editor?: string; documentId?: number }): string | undefined {
    for (const member of this.roster.members()) {
      if (editor !== undefined && member.editors.some((e) => e.id === editor)) return member.bridge;
      if (documentId !== undefined && Math.floor(documentId / DOCUMENT_ID_RANGE) === member.slot) return member.bridge;
    }
    return undefined;
  }

  /**
   * One of this bridge's editors' events of a type, numbered as the cluster sees them (so a client's session can
   * say how far it got), once joined; undefined before, or for another bridge's editor.
   */
  localEvents(editor: string, type: string): Observable<SerializedEvent> | undefined {
    return this.events?.localStream(editor, type);
  }

  /**
   * Every other bridge's editors' events of a pool-wide type (not one editor's state), once joined; undefined
   * before (then subscribers get this bridge's editors' only).
   */
  wideEvents(type: string): Observable<SerializedEvent> | undefined {
    return this.events?.wideStream(type);
  }

  /** Keeps this bridge's logical clients' sessions in the cluster, so they can resume on another bridge. */
  serveSessions(clients: () => Iterable<LogicalClient>): void {
    this.clients = clients;
  }

  /**
   * A client another bridge holds or held (`?resume=` of an id this bridge does not have): handed over by that
   * bridge, or recovered from the cluster's copy when it is gone. Not found while this bridge is out of the cluster.
   * @throws BridgeError `CLIENT_ATTACHED` when it is attached there and `takeover` is false.
   */
  claimSession(id: string, endpoint: string, takeover: boolean): Promise<SessionClaim> {
    if (this.sessions === undefined || this.state !== "connected") return Promise.resolve({ found: false });
    return this.sessions.claim(id, endpoint, takeover);
  }

  /** A logical client of this bridge ended. */
  sessionEnded(client: LogicalClient): void {
    this.sessions?.ended(client);
  }

  /** Runs the calls other bridges send here (as the bridge's own clients' calls are run). */
  serveCalls(run: (call: IncomingCall) => Promise<unknown>): void {
    this.runCall = run;
    this.calls?.serve(run);
  }

  /**
   * Sends a call to another bridge of the cluster and resolves with its answer.
   * @throws BridgeError `HOST_UNAVAILABLE` (retryable) while NATS is unreachable, or that bridge is.
   */
  forward(bridge: string, call: ForwardedCall, cancel?: CancelSignal, progress?: ProgressReporter): Promise<unknown> {
    if (this.calls === undefined || this.state !== "connected") {
      return Promise.reject(
        new BridgeError("HOST_UNAVAILABLE", `Bridge "${bridge}" cannot be reached: this bridge has lost NATS`, { details: { bridge }, retryable: true }),
      );
    }
    return this.calls.forward(bridge, call, cancel, progress);
  }

  /**
   * Another bridge's editor's events of one type, while NATS is there. @throws BridgeError `HOST_UNAVAILABLE`
   * while this bridge has no NATS.
   */
  remoteEvents(bridge: string, editor: string, type: string): Observable<SerializedEvent> {
    if (this.events === undefined) {
      throw new BridgeError("HOST_UNAVAILABLE", `Events of bridge "${bridge}" cannot be followed: this bridge has no NATS yet`, { details: { bridge }, retryable: true });
    }
    return this.events.stream(bridge, editor, type);
  }

  /** What `getServerInfo` says of the cluster. */
  info(): ClusterInfo {
    const { peers, lost } = this.status();
    return {
      name: this.name,
      bridge: this.bridge,
      editors: peers.flatMap((peer) => peer.editors.filter((e) => e.state === "ready" || e.state === "busy").map((e) => ({ id: e.id, kind: e.kind, bridge: peer.bridge }))),
      lost: lost.map(({ bridge, editors }) => ({ bridge, editors: [...editors] })),
    };
  }

  /** The `/ready` reason while the cluster is not fully working: degraded, never down (local editors still serve). */
  readiness(): ReadinessReason | undefined {
    if (this.problem !== undefined) return { component: "cluster", status: "degraded", message: `cluster "${this.name}": ${this.problem}` };
    const lost = this.roster.lostBridges();
    if (lost.length === 0) return undefined;
    const editors = lost.reduce((n, l) => n + l.editors.length, 0);
    const documents = lost.reduce((n, l) => n + l.documents, 0);
    return {
      component: "cluster",
      status: "degraded",
      message: `cluster "${this.name}": ${lost.length} bridge${lost.length === 1 ? "" : "s"} went away with ${editors} editor${editors === 1 ? "" : "s"} and ${documents} document${documents === 1 ? "" : "s"}`,
    };
  }

  /**
   * Leaves the cluster: its slot is given back, then it stops answering, and the connection is drained. In that
   * order: a peer that asked this bridge something between the two and found no one answering would take it for
   * dead (its editors and documents listed as lost) rather than gone on purpose.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.heartbeat);
    await this.beating?.catch(() => undefined);
    const { nc, kv, slot } = this;
    this.state = "closed";
    if (nc !== undefined && kv !== undefined && slot !== undefined && !nc.isClosed()) await kv.delete(keyOf(slot)).catch(() => undefined);
    this.calls?.stop();
    this.events?.stop();
    this.sessions?.stop();
    this.transfers?.stop();
    if (nc === undefined) return;
    await nc.drain().catch(() => nc.close());
  }

  private async connected(nc: NatsConnection): Promise<void> {
    if (this.stopped) {
      await nc.close();
      return;
    }
    this.nc = nc;
    this.state = "connected";
    void this.watchStatus(nc);
    this.transfers = new Transfers(nc, `${this.name}.transfer.${this.bridge}`, this.limits);
    this.transfers.start();
    const signing = this.options.secret === undefined ? undefined : { secret: this.options.secret, maxAgeMs: this.limits.clusterCallMaxAgeMs };
    this.calls = new ClusterCalls(nc, this.name, this.bridge, this.transfers, this.log, this.limits.clusterHeartbeatMs, (bridge) => this.roster.noResponders(bridge), (bridge) => this.roster.has(bridge), signing);
    if (this.runCall !== undefined) this.calls.serve(this.runCall);
    this.events = new ClusterEvents(
      nc,
      this.name,
      this.bridge,
      this.transfers,
      this.log,
      (editor, type) => this.sources.events(editor, type),
      this.limits.clusterMemberTtlMs,
      () => this.sources.editors().map((e) => e.id),
      this.epoch,
    );
    this.events.start();
    try {
      const { Kvm } = await import("@nats-io/kv");
      this.kv = await new Kvm(nc).create(`${this.name}-members`, { history: 1, ttl: this.limits.clusterMemberTtlMs });
      await this.beat(true);
      const sessions = new ClusterSessions(nc, this.name, this.bridge, this.limits, this.log, this.transfers, (bridge) => this.roster.has(bridge), () => this.clients(), (bridge) => this.roster.noResponders(bridge));
      await sessions.start();
      this.sessions = sessions;
    } catch (error) {
      this.failed(`cannot use the members bucket (is JetStream enabled, nats-server -js?): ${String(error)}`);
    }
    this.heartbeat = setInterval(() => {
      this.beating ??= this.beat().finally(() => (this.beating = undefined));
    }, this.limits.clusterHeartbeatMs);
    this.heartbeat.unref();
  }

  private async watchStatus(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === "disconnect" || status.type === "reconnecting") {
        if (this.state !== "reconnecting") this.log.warn({ type: status.type }, "lost NATS; reconnecting (local editors keep serving)");
        this.state = "reconnecting";
        this.problem = "NATS is unreachable; reconnecting";
      } else if (status.type === "reconnect") {
        this.state = "connected";
        this.log.info({}, "NATS reachable again");
        if (this.sessions !== undefined) {
          this.sessions.streamMissing = true;
          this.sessions.repairStream();
        }
        this.beating ??= this.beat().finally(() => (this.beating = undefined));
      }
    }
  }

  /**
   * Claims a slot the first time, then refreshes this bridge's entry, and reads everyone else's unless a read is
   * still running. A beat waits for the read only when `waitForPeers` (the first, so a joined bridge knows its peers):
   * a listing of the members may take up to `clusterMemberTtlMs` before it is given up, and a rewrite waiting behind
   * it would let this bridge's own entry expire, so that the others took a live bridge for dead.
   */
  private async beat(waitForPeers = false): Promise<void> {
    const kv = this.kv;
    if (kv === undefined || this.stopped || this.state !== "connected") return;
    this.events?.heartbeat();
    this.sessions?.repairStream();
    const failed = (error: unknown): void => {
      this.problem = error instanceof BridgeError ? error.message : `the members bucket failed: ${String(error)}`;
    };
    try {
      if (this.slot === undefined) await this.claim(kv);
      else await this.refresh(kv, this.slot);
      this.refreshed = true;
    } catch (error) {
      this.refreshed = false;
      failed(error);
      return;
    }
    this.reading ??= this.readPeers(kv)
      .then(() => {
        if (this.refreshed) this.problem = undefined;
      }, failed)
      .finally(() => (this.reading = undefined));
    if (waitForPeers) await this.reading;
  }

  private member(slot: number): Uint8Array {
    const member: ClusterMember = {
      bridge: this.bridge,
      slot,
      version: PACKAGE.version,
      editors: this.sources.editors(),
      remoteClients: Object.fromEntries(this.sources.remoteClients()),
      at: Date.now(),
    };
    return new TextEncoder().encode(JSON.stringify(member));
  }

  /** The lowest free slot: `create` succeeds only where no live bridge holds the key. */
  private async claim(kv: KV): Promise<void> {
    for (let slot = 1; slot <= MAX_CLUSTER_BRIDGES; slot++) {
      try {
        this.revision = await kv.create(keyOf(slot), this.member(slot));
      } catch {
        continue; // held by a live bridge
      }
      this.slot = slot;
      this.log.info({ cluster: this.name, bridge: this.bridge, slot }, "joined the cluster");
      this.sources.claimed(slot);
      return;
    }
    throw new BridgeError("HOST_BUSY", `cluster "${this.name}" has no free slot (at most ${MAX_CLUSTER_BRIDGES} bridges)`);
  }

  /**
   * Rewrites this bridge's entry only if it is still the last one written there: after an outage longer than the
   * members' time to live the key expired, and the slot is taken back if nobody claimed it meanwhile.
   */
  private async refresh(kv: KV, slot: number): Promise<void> {
    try {
      this.revision = await kv.update(keyOf(slot), this.member(slot), this.revision);
      return;
    } catch {
      // Expired, or another bridge's now.
    }
    try {
      this.revision = await kv.create(keyOf(slot), this.member(slot));
      this.log.warn({ slot }, "cluster slot expired during an outage and was taken back");
    } catch {
      throw new BridgeError(
        "HOST_UNAVAILABLE",
        `slot ${slot} expired during an outage and another bridge holds it: restart this bridge to join with a new slot`,
      );
    }
  }

  /**
   * Reads every member's entry. The listing of the keys ends when the server says it sent the last one; a consumer
   * lost with NATS mid-listing never says so, and the beat waiting on it would hold every later beat back (the bridge
   * then stayed "unreachable" after NATS came back). So the listing is stopped after `clusterMemberTtlMs`, by which
   * time the entries it would read have expired anyway, and the beat fails: the roster keeps what it had.
   */
  private async readPeers(kv: KV): Promise<void> {
    const entries: ClusterMember[] = [];
    const keys = await kv.keys();
    let stalled = false;
    const timer = setTimeout(() => {
      stalled = true;
      keys.stop();
    }, this.limits.clusterMemberTtlMs);
    try {
      for await (const key of keys) {
        const entry = await kv.get(key);
        if (entry === null || entry.operation !== "PUT") continue;
        const member = parseMember(entry.string());
        if (member !== undefined && member.slot !== this.slot) entries.push(member);
      }
    } finally {
      clearTimeout(timer);
    }
    if (stalled) throw new BridgeError("HOST_UNAVAILABLE", `the members bucket's keys did not all arrive within ${this.limits.clusterMemberTtlMs} ms; reading them again`);
    this.roster.update(entries);
  }

  private failed(problem: string): void {
    this.problem = problem;
    this.log.error({ problem }, "cluster problem");
  }
}
