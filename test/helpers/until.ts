/**
 * Waiting on what the bridge shows rather than on time. Where the bridge announces a change with an event
 * (`editor:restarted`, `plugin:restarted`, `closedDocument`…), tests subscribe and wait on the event; for state it
 * shows only when asked (`/status`, `/ready`, counters), they ask through `until`: each read is a round trip, then a
 * pause of `intervalMs` so a loaded machine spends its cores on the bridge, not on the asking.
 */
import type { ClusterStatus } from "../../src/cluster/members.js";

/** How often `until` asks again. */
export const UNTIL_INTERVAL_MS = 10;
/**
 * How long `until` asks before it fails naming what it waited for and the last answer. Longer than any test's
 * own timeout needs: it only turns a hang into a readable failure, it never decides a verdict on a slow machine.
 */
export const UNTIL_DEADLINE_MS = 170_000;

export interface UntilOptions {
  /** What is waited for, for the failure message. */
  readonly what?: string;
  readonly intervalMs?: number;
  readonly deadlineMs?: number;
  /** Stops waiting (resolving with the last answer) once aborted. */
  readonly signal?: AbortSignal;
}

/** Reads `read` until `done` holds of its answer, and answers that. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, options: UntilOptions = {}): Promise<T> {
  const deadline = Date.now() + (options.deadlineMs ?? UNTIL_DEADLINE_MS);
  for (;;) {
    const value = await read();
    if (done(value) || options.signal?.aborted) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${options.what ?? "a condition"}; last seen: ${JSON.stringify(value)?.slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? UNTIL_INTERVAL_MS));
  }
}

/** Something `/status` can be read from: a harness (`http`) or a bridge's base URL. */
export type StatusTarget = { http(path: string, init?: RequestInit): Promise<Response> } | string;

/** The bridge's `/status`, as JSON (with `token` when the bridge asks for one). */
export async function statusOf<T = Record<string, unknown>>(target: StatusTarget, token?: string): Promise<T> {
  const init = token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } };
  const response = typeof target === "string" ? await fetch(`${target}/status`, init) : await target.http("/status", init);
  return (await response.json()) as T;
}

/** The bridge's view of its cluster, from `/status`. */
export async function clusterOf(target: StatusTarget, token?: string): Promise<ClusterStatus> {
  return (await statusOf<{ cluster: ClusterStatus }>(target, token)).cluster;
}

/** Reads `/status` until `done` holds of the bridge's cluster view. */
export function untilCluster(target: StatusTarget, done: (cluster: ClusterStatus) => boolean, what = "the cluster view"): Promise<ClusterStatus> {
  return until(() => clusterOf(target), done, { what });
}

/** Whether a cluster view lists every one of `bridges` as a peer whose editors are all ready. */
export function seesReadyPeers(cluster: ClusterStatus, bridges: readonly string[]): boolean {
  return bridges.every((b) => cluster.peers.some((p) => p.bridge === b && p.editors.length > 0 && p.editors.every((e) => e.state === "ready")));
}
