import { createBridge, type Bridge } from "../../src/bridge/bridge.js";
import type { BridgeOptions } from "../../src/bridge/options.js";
import { afterEachTest } from "./cleanups.js";
import { TestClient } from "./ws-client.js";
import { statusOf, until } from "./until.js";

const running: Array<{ bridge: Bridge; clients: TestClient[] }> = [];

afterEachTest(async () => {
  const all = running.splice(0);
  await Promise.all(
    all.map(async ({ bridge, clients }) => {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      await bridge.close();
    }),
  );
});

export interface Harness {
  bridge: Bridge;
  /** Opens a WS client to `/ws` (or a path and query given) and closes it after the test. */
  connect(pathAndQuery?: string, options?: Parameters<typeof TestClient.open>[1]): Promise<TestClient>;
  /** Fetches a path of the bridge. */
  http(path: string, init?: RequestInit): Promise<Response>;
}

/** Starts a bridge on 127.0.0.1 port 0 that is closed after the test, with every client it opened. */
export async function startBridge(options: BridgeOptions = {}): Promise<Harness> {
  const { harness, entry } = open(options);
  running.push(entry);
  await harness.bridge.start();
  return harness;
}

/**
 * Starts a bridge for a whole suite (several tests in turn): the suite closes it with `close()`, which closes its
 * clients too, e.g. in `afterAll`.
 */
export async function startSuiteBridge(options: BridgeOptions = {}): Promise<Harness & { close(): Promise<void> }> {
  const { harness, entry } = open(options);
  await harness.bridge.start();
  return {
    ...harness,
    close: async () => {
      await Promise.all(entry.clients.map((c) => c.close().catch(() => {})));
      await entry.bridge.close();
    },
  };
}

/**
 * Takes a bridge `startBridge` started (or one a conformance editor's `start()` gave) out of the after-test close,
 * so several tests in turn can use it; the returned function closes it with its clients, e.g. in `afterAll`.
 */
export function keepForSuite(harness: Harness): () => Promise<void> {
  const index = running.findIndex((entry) => entry.bridge === harness.bridge);
  if (index < 0) throw new Error("keepForSuite: the bridge is not one startBridge started, or it is closed");
  const [entry] = running.splice(index, 1);
  return async () => {
    await Promise.all(entry!.clients.map((c) => c.close().catch(() => {})));
    await entry!.bridge.close();
  };
}

function open(options: BridgeOptions): { harness: Harness; entry: { bridge: Bridge; clients: TestClient[] } } {
  const bridge = createBridge({ ...options, listen: { host: "127.0.0.1", port: 0, ...options.listen } });
  const entry = { bridge, clients: [] as TestClient[] };
  const harness: Harness = {
    bridge,
    async connect(pathAndQuery = "/ws", clientOptions = {}) {
      const client = await TestClient.open(`ws://127.0.0.1:${bridge.port}${pathAndQuery}`, clientOptions);
      entry.clients.push(client);
      return client;
    },
    http: (path, init) => fetch(`${bridge.url}${path}`, init),
  };
  return { harness, entry };
}

/** Resolves once the editor mailbox holds `count` waiting calls (read from `/status`). */
export async function waitForQueued(harness: Harness, count: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return;
  await until(() => statusOf<{ editor: { queued: number } }>(harness), (status) => status.editor.queued >= count, { what: `${count} queued calls`, signal });
}

/** What `/status` says of one editor, as tests read it. */
export interface EditorView {
  id: string;
  state: string;
  restarts: number;
  running: number;
  queued: number;
}

/** The first editor's view from `/status`. */
export async function firstEditor(harness: Harness): Promise<EditorView> {
  return ((await (await harness.http("/status")).json()) as { editors: EditorView[] }).editors[0]!;
}

/** Resolves once `condition` holds for the first editor (read from `/status`). */
export async function untilEditor(harness: Harness, condition: (view: EditorView) => boolean): Promise<void> {
  await until(() => firstEditor(harness), condition, { what: "the editor's state" });
}
