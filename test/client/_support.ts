import { WebSocket } from "ws";
import { clientIdPrefix } from "../../src/actors/clients/names.js";
import { Connection, type ConnectionOptions } from "../../src/client/index.js";
import type { LocalEventName, LocalEvents } from "../../src/client/types.js";
import { afterEachTest } from "../helpers/cleanups.js";

const open: Connection[] = [];
const cleanups: Array<() => Promise<void>> = [];

afterEachTest(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  await Promise.all(cleanups.splice(0).map((f) => f()));
});

/** A Node client (ws's WebSocket) closed after the test; reconnects fast so tests do not wait on backoff. */
export function connect(url: string, options: Partial<ConnectionOptions> = {}): Connection {
  const connection = new Connection({
    url,
    WebSocket,
    reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
    ...options,
  });
  open.push(connection);
  return connection;
}

/** Runs `fn` after the test (after the test's connections closed). */
export function onCleanup(fn: () => Promise<void>): void {
  cleanups.push(fn);
}

/** Records every emission of a local notification and lets tests wait for the n-th one. */
export function record<K extends LocalEventName>(connection: Connection, type: K): { list: Array<LocalEvents[K]>; nth(n: number): Promise<LocalEvents[K]> } {
  const list: Array<LocalEvents[K]> = [];
  const waiters: Array<() => void> = [];
  connection.on(type, ((data: LocalEvents[K]) => {
    list.push(data);
    for (const wake of waiters.splice(0)) wake();
  }) as never);
  return {
    list,
    async nth(n) {
      while (list.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
      return list[n - 1]!;
    },
  };
}

/** Collects the events of one type with their seq. */
export function collect<T = unknown>(connection: Connection, type: string): { list: Array<{ data: T; seq: number | undefined }>; nth(n: number): Promise<void> } {
  const list: Array<{ data: T; seq: number | undefined }> = [];
  const waiters: Array<() => void> = [];
  connection.on(type, ((data: T, meta: { seq: number | undefined }) => {
    list.push({ data, seq: meta.seq });
    for (const wake of waiters.splice(0)) wake();
  }) as never);
  return {
    list,
    async nth(n) {
      while (list.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}

/**
 * Resolves once the bridge (asked through `observer`) shows the client in `state`, or gone for "disposed". The list
 * names clients by id prefix only; `clientId` may be the full id or its prefix.
 */
export async function waitForServerState(observer: Connection, clientId: string, state: "attached" | "detached" | "disposed"): Promise<void> {
  for (;;) {
    const { clients } = await observer.server.clients();
    const found = clients.find((c) => c.idPrefix === clientIdPrefix(clientId));
    if (state === "disposed" ? found === undefined : found?.state === state) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
