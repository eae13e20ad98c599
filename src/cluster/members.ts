/*
 * The members bucket's shapes and names: what a bridge announces of itself, what `/status` shows of the cluster,
 * and the checks on the names a cluster is joined with.
 */
import { hostname } from "node:os";
import { BridgeError, type EditorSummary } from "../protocol/index.js";
import type { FollowedStream } from "./events.js";
import { CLUSTER_NAME_PATTERN, type ClusterOptions } from "./options.js";
import { MIN_CLUSTER_SECRET_LENGTH } from "./signing.js";

/** Slots a cluster hands out: the most bridges one cluster holds. */
export const MAX_CLUSTER_BRIDGES = 1_000;

/** What a bridge announces of itself in the members bucket, one key per slot (`slot-<n>`). */
export interface ClusterMember {
  readonly bridge: string;
  readonly slot: number;
  readonly version: string;
  readonly editors: readonly EditorSummary[];
  /** This bridge's logical clients working with other bridges' editors, by editor id (they load those editors). */
  readonly remoteClients?: Readonly<Record<string, number>>;
  /** When the bridge wrote this (its clock), epoch ms. */
  readonly at: number;
}

export type ClusterState = "connecting" | "connected" | "reconnecting" | "closed";

/** `GET /status` `cluster`. */
export interface ClusterStatus {
  readonly name: string;
  readonly bridge: string;
  /** This bridge's slot, once claimed; its document ids are `slot × 1,000,000,000 + n`. */
  readonly slot?: number;
  readonly state: ClusterState;
  /** Why the cluster is not fully working, while it is not. */
  readonly problem?: string;
  /** The other bridges, as last read. */
  readonly peers: readonly ClusterMember[];
  /** Event streams of other bridges' editors this bridge's clients follow. */
  readonly following: readonly FollowedStream[];
  /**
   * Bridges that went away without leaving (they died, or lost NATS for longer than the members' time to live), in
   * the last `clusterLostVisibleMs`, with the editors (and so the documents) that went with them.
   */
  readonly lost: ReadonlyArray<{ readonly bridge: string; readonly at: number; readonly editors: readonly string[]; readonly documents: number }>;
}

/** The default bridge name: host name and process id, as subject-safe characters. */
export function defaultBridgeName(): string {
  return `${hostname().replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 40)}-${process.pid}`;
}

/** Checks the options a cluster is joined with. @throws BridgeError `BAD_REQUEST` naming the bad one. */
export function checkClusterOptions(options: ClusterOptions): { name: string; bridge: string } {
  const name = options.name ?? "bridge";
  const bridge = options.bridge ?? defaultBridgeName();
  if (options.servers.length === 0) throw new BridgeError("BAD_REQUEST", "A cluster needs at least one NATS server (--cluster nats://host:4222)");
  if (options.secret !== undefined && options.secret.length < MIN_CLUSTER_SECRET_LENGTH) {
    throw new BridgeError("BAD_REQUEST", `A cluster secret needs at least ${MIN_CLUSTER_SECRET_LENGTH} characters`);
  }
  for (const [what, value] of [
    ["cluster name", name],
    ["bridge name", bridge],
  ] as const) {
    if (!CLUSTER_NAME_PATTERN.test(value)) {
      throw new BridgeError("BAD_REQUEST", `The ${what} "${value}" may hold only letters, digits, "_" and "-" (at most 64)`, { details: { [what.replace(" n", "N")]: value } });
    }
  }
  return { name, bridge };
}

/** The members bucket key of a slot. */
export const keyOf = (slot: number): string => `slot-${slot}`;

export function parseMember(text: string): ClusterMember | undefined {
  try {
    const value = JSON.parse(text) as ClusterMember;
    return typeof value.bridge === "string" && Number.isInteger(value.slot) && Array.isArray(value.editors) ? value : undefined;
  } catch {
    return undefined;
  }
}
