import { randomUUID } from "node:crypto";
import type { Limits } from "../limits.js";
import type { Logger } from "../logger.js";
import { LogicalClient, type ClientSocket } from "./client.js";
import { ReplayBudget } from "./replay-budget.js";

/** How clients get their editor: the least loaded, or the one asked for (`?editor=`); released at disposal. */
export interface EditorAssignment {
  /** @throws BridgeError `BAD_REQUEST` for an unknown editor id. */
  assign(requested: string | undefined): { readonly id: string };
  /** How many editors there are: with one, summaries leave `editorId` out (every client has the same). */
  readonly editors: readonly unknown[];
  release(editorId: string): void;
  /** Whether an editor id is this bridge's (false: another bridge's, in a cluster). @default every id is */
  has?(editorId: string): boolean;
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

  constructor(
    private readonly limits: Limits,
    private readonly log: Logger,
    private readonly onDisposed: (client: LogicalClient) => void = () => {},
    private readonly editors?: EditorAssignment,
  ) {
    this.replayBudget = new ReplayBudget(limits.replayTotalBytes, (holder, bytesBefore) => {
      // At most one line per detached client: a dropped client is not a candidate again until it resumes.
      const actor = (holder as LogicalClient).logName;
      log.info({ actor, limit: "replayTotalBytes", max: limits.replayTotalBytes, used: bytesBefore }, "replay budget reached: dropped the longest-detached client's replay");
    });
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
    const assigned = this.editors?.assign(editor).id;
    // Summaries of every client carry it; with one editor it says nothing, so it is left out (and not counted),
    // unless the client asked for another bridge's editor (a cluster).
    const editorId = (this.editors?.editors.length ?? 0) > 1 || (assigned !== undefined && this.editors?.has?.(assigned) === false) ? assigned : undefined;
    const onDisposed = (c: LogicalClient): void => {
      this.clients.delete(c.id);
      // Its editor now: the bridge may have moved it since (`editor:changed`).
      const current = c.editorId ?? assigned;
      if (current !== undefined) this.editors?.release(current);
      this.log.info({ actor: c.logName, endpoint: c.endpoint }, "client disposed");
      this.onDisposed(c);
    };
    const client = new LogicalClient(randomUUID(), endpoint, socket, this.limits, onDisposed, name, editorId, this.replayBudget);
    this.clients.set(client.id, client);
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

  disposeAll(): void {
    // Deleting the current entry while iterating a Map is safe: disposal removes each client as it goes.
    for (const client of this.clients.values()) client.dispose("shutdown");
  }
}
