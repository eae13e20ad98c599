import { randomUUID } from "node:crypto";
import { BridgeError } from "../../protocol/index.js";
import type { Limits } from "../../limits.js";
import type { Logger } from "../../logger.js";
import { LogicalClient } from "./client.js";
import type { ClientSocket } from "./port.js";
import { ChurnLog } from "./churn-log.js";
import { ReplayBudget } from "./replay-budget.js";

/** How clients get their editor: the least loaded, or the one asked for (`?editor=`); released at disposal. */
export interface EditorAssignment {
  /**
   * @throws BridgeError `BAD_REQUEST` for an unknown editor id. Undefined: no editor to give now (a front door
   * with no other bridge's editor taking calls); the client's calls go wherever the load is least.
   */
  assign(requested: string | undefined): { readonly id: string } | undefined;
  /** How many editors there are: with one, summaries leave `editorId` out (every client has the same). */
  readonly editors: readonly unknown[];
  release(editorId: string): void;
  /** Whether an editor id is this bridge's (false: another bridge's, in a cluster). @default every id is */
  has?(editorId: string): boolean;
  /** A cluster: every client's editor is said (its session names it for the other bridges). */
  readonly forwarding?: boolean;
}

/**
 * Every logical client of the bridge, across endpoints. Each is its own actor created with `createActor`, not
 * spawned into a parent: spawning thousands of children into one XState parent is quadratic.
 *
 * Memory of detached clients: `maxClients` (20,000) stays high so thousands of loopback clients and reconnect
 * storms are served, and what they may hold for replay is bounded as a whole by `replayTotalBytes` (256 MiB), not
 * by `maxClients` × `replayBufferBytes`: past the total, the longest-detached clients' buffers are dropped first.
 */
export class ClientRegistry {
  private readonly clients = new Map<string, LogicalClient>();
  /** Replay bytes held by every client, bounded by `replayTotalBytes`. */
  readonly replayBudget: ReplayBudget;
  /** Log lines about clients connecting, closing and being disposed, sampled per address. */
  readonly churn: ChurnLog;

  constructor(
    private readonly limits: Limits,
    private readonly log: Logger,
    private readonly onDisposed: (client: LogicalClient) => void = () => {},
    private readonly editors?: EditorAssignment,
  ) {
    this.churn = new ChurnLog(log, limits);
    this.replayBudget = new ReplayBudget(limits.replayTotalBytes, (holder, bytesBefore) => {
      // At most one line per detached client: a dropped client is not a candidate again until it resumes.
      const actor = (holder as LogicalClient).logName;
      log.info({ actor, limit: "replayTotalBytes", max: limits.replayTotalBytes, used: bytesBefore }, "replay budget reached: dropped the longest-detached client's replay");
    });
  }

  /** `maxClients`. */
  get limit(): number {
    return this.limits.maxClients;
  }

  get size(): number {
    return this.clients.size;
  }

  /**
   * Makes room for one more logical client: disposes the longest-detached one when at `maxClients`. Returns false
   * when every client is attached and there is no room.
   */
  reserve(): boolean {
    if (this.clients.size < this.limits.maxClients) return true;
    let oldest: LogicalClient | undefined;
    for (const client of this.clients.values()) {
      if (client.state === "detached" && (oldest === undefined || client.detachedAt < oldest.detachedAt)) oldest = client;
    }
    if (oldest === undefined) return false;
    this.log.warn({ actor: oldest.logName, limit: this.limits.maxClients }, "client limit reached: disposing the longest-detached client");
    oldest.dispose("evicted");
    return true;
  }

  /**
   * Starts a new logical client with a server-issued id, an optional display name, and its editor.
   * @throws BridgeError `BAD_REQUEST` when `editor` names no editor of the bridge.
   */
  create(endpoint: string, socket: ClientSocket, name?: string, editor?: string): LogicalClient {
    const assigned = this.editors?.assign(editor)?.id;
    // Summaries of every client carry it; with one editor and no cluster it says nothing, so it is left out.
    const named = (this.editors?.editors.length ?? 0) > 1 || this.editors?.forwarding === true;
    const editorId = named || (assigned !== undefined && this.editors?.has?.(assigned) === false) ? assigned : undefined;
    const client = new LogicalClient(randomUUID(), endpoint, socket, this.limits, (c) => this.disposed(c, assigned), name, editorId, this.replayBudget, this.churn);
    this.clients.set(client.id, client);
    return client;
  }

  /**
   * Takes in a logical client another bridge of the cluster held, with its id, detached until the socket that asked
   * for it attaches (as a resume does). Its editor is the one it had when that editor is still there, else a new
   * one as for a new client (the caller says so with `editor:changed`).
   */
  adopt(id: string, endpoint: string, name: string | undefined, editor: string | undefined): LogicalClient {
    const placeholder: ClientSocket = { send: () => {}, binary: false, sendBinary: () => {}, bufferedAmount: 0, close: () => {} };
    const assigned = this.editors?.assign(editor)?.id;
    const client = new LogicalClient(id, endpoint, placeholder, this.limits, (c) => this.disposed(c, assigned), name, assigned, this.replayBudget, this.churn);
    this.clients.set(id, client);
    client.detach(placeholder);
    return client;
  }

  /**
   * A live client of this endpoint with exactly this id, or undefined (unknown, expired or another endpoint's). A
   * prefix such as `server:clients` shows never matches.
   */
  find(id: string, endpoint: string): LogicalClient | undefined {
    const client = this.clients.get(id);
    return client !== undefined && client.endpoint === endpoint && client.state !== "disposed" ? client : undefined;
  }

  /**
   * The live client whose id starts with `prefix` (any case): how an operator names a client, by the prefix
   * `server:clients` shows.
   * @throws BridgeError `NOT_FOUND` when no client's id starts with it, `BAD_REQUEST` when several do.
   */
  byPrefix(prefix: string): LogicalClient {
    const wanted = prefix.toLowerCase();
    const matches = [...this.clients.values()].filter((client) => client.id.startsWith(wanted) && client.state !== "disposed");
    if (matches.length === 0) {
      throw new BridgeError("NOT_FOUND", `No client's id starts with "${prefix}"`, { details: { clientIdPrefix: prefix } });
    }
    if (matches.length > 1) {
      throw new BridgeError("BAD_REQUEST", `${matches.length} clients' ids start with "${prefix}"; give more of the id`, {
        details: { clientIdPrefix: prefix, matches: matches.length },
      });
    }
    return matches[0]!;
  }

  /**
   * `server:disconnectClient`: closes the socket of the client named by `prefix` (it stays resumable), or with
   * `evict` disposes it. Logged with the client's log name, never its id.
   * @throws BridgeError as {@link byPrefix}.
   */
  disconnect(prefix: string, evict: boolean): { client: ReturnType<LogicalClient["summary"]>; disconnected: boolean; evicted: boolean } {
    const client = this.byPrefix(prefix);
    const summary = client.summary();
    const disconnected = client.disconnect(evict);
    this.log.info({ actor: client.logName, endpoint: client.endpoint, evict, disconnected }, evict ? "client evicted by an operator" : "client disconnected by an operator");
    return { client: summary, disconnected, evicted: evict };
  }

  /** Live logical clients (a disposed client leaves the registry as it is disposed). */
  list(): LogicalClient[] {
    return [...this.clients.values()];
  }

  /** Attached logical clients of one endpoint (`PluginHealth.clients`). */
  countAttached(endpoint: string): number {
    let n = 0;
    for (const client of this.clients.values()) if (client.endpoint === endpoint && client.state === "attached") n++;
    return n;
  }

  private disposed(client: LogicalClient, assigned: string | undefined): void {
    this.clients.delete(client.id);
    // Its editor now: the bridge may have moved it since (`editor:changed`).
    const current = client.editorId ?? assigned;
    if (current !== undefined) this.editors?.release(current);
    this.churn.write(client.address, "disposed", { actor: client.logName, endpoint: client.endpoint, reason: client.disposeReason }, "client disposed");
    this.onDisposed(client);
  }

  disposeAll(): void {
    // Deleting the current entry while iterating a Map is safe: disposal removes each client as it goes.
    for (const client of this.clients.values()) client.dispose("shutdown");
    this.churn.flush();
  }
}
