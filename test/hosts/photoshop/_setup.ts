import { expect } from "vitest";
import type { BridgeOptions } from "../../../src/bridge/options.js";
import { createPhotoshopHost, type PhotoshopLimits } from "../../../src/hosts/photoshop/index.js";
import type { HostAdapter, HostCallContext } from "../../../src/hosts/host.js";
import type { HostLayer } from "../../../src/protocol/index.js";
import { startBridge, type Harness } from "../../helpers/bridge.js";
import { afterEachTest } from "../../helpers/cleanups.js";
import { FakePhotoshop, type FakePhotoshopOptions } from "../../fakes/photoshop/server.js";
import { statusOf, until } from "../../helpers/until.js";
import type { TestClient } from "../../helpers/ws-client.js";

const fakes: FakePhotoshop[] = [];
const hosts: HostAdapter[] = [];
afterEachTest(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  await Promise.all(fakes.splice(0).map((f) => f.stop()));
});

/** A fake Photoshop stopped after the test. */
export async function startFake(options: FakePhotoshopOptions = {}): Promise<FakePhotoshop> {
  const fake = await FakePhotoshop.start(options);
  fakes.push(fake);
  return fake;
}

/** A Photoshop host on the fake (not behind a bridge), closed after the test. */
export function hostOn(fake: FakePhotoshop, limits: Partial<PhotoshopLimits> = {}, password = fake.password): HostAdapter {
  const host = createPhotoshopHost({ ...fake.address, password, limits });
  hosts.push(host);
  return host;
}

/** A bridge whose editor is the fake Photoshop; reconnects fast. */
export function bridgeOn(
  fake: FakePhotoshop,
  options: BridgeOptions = {},
  limits: Partial<PhotoshopLimits> = {},
  password = fake.password,
): Promise<Harness> {
  return startBridge({
    ...options,
    host: createPhotoshopHost({ ...fake.address, password, limits }),
    limits: { reconnectInitialMs: 10, reconnectMaxMs: 50, ...options.limits },
  });
}

/** A call context whose deadline is `ms` from now. */
export const ctx = (ms = 5_000): HostCallContext => ({ signal: AbortSignal.timeout(ms), caller: "test" });

/** Resolves once the bridge's host session is connected to the editor (read from `/status`, no sleeps). */
export async function waitForHostReady(harness: Harness): Promise<void> {
  await until(() => statusOf<{ editor: { state: string } }>(harness), (status) => status.editor.state === "ready" || status.editor.state === "busy", { what: "Photoshop connected" });
}

/** The edit scripts a fake Photoshop ran. */
type EditRun = FakePhotoshop["runs"][number];

/** What `editSessionOnFake` answers; a test file's own session adds its helpers to the rest. */
export interface EditSession {
  fake: FakePhotoshop;
  client: TestClient;
  id(name: string): number;
  oneEdit<T extends { revision: number }>(method: string, params: Record<string, unknown>): Promise<{ result: T; run: EditRun }>;
  refused(method: string, params: Record<string, unknown>): Promise<{ code: string; message: string; details?: Record<string, unknown> }>;
}

/**
 * A bridge on a fresh fake Photoshop and a client of it, for tests of one edit at a time: the sample document's
 * layer ids by name, `oneEdit` (the method's result and the one edit script it ran, checked to be one history
 * state named after the method and one revision), and `refused` (the error, checked to have run nothing).
 */
export async function editSessionOnFake(): Promise<EditSession> {
  const fake = await startFake();
  const client = await (await bridgeOn(fake, {})).connect();
  const flat = (layers: readonly HostLayer[]): HostLayer[] => layers.flatMap((l) => [l, ...flat(l.children ?? [])]);
  const ids = new Map(flat(fake.model.docs[0]!.layers as unknown as HostLayer[]).map((l) => [l.name, l.id]));
  const editRuns = (): EditRun[] => fake.runs.filter((r) => r.op.startsWith("edit."));
  return {
    fake,
    client,
    id: (name) => ids.get(name)!,
    async oneEdit<T extends { revision: number }>(method: string, params: Record<string, unknown>) {
      const before = editRuns().length;
      const { revision } = await client.call<{ revision: number }>("document:current");
      const result = await client.call<T>(method, params);
      expect(result.revision).toBe(revision + 1);
      const runs = editRuns().slice(before);
      expect(runs, `${method} runs one edit script`).toHaveLength(1);
      expect(runs[0]!.history, `${method} is one history state`).toEqual([method]);
      return { result, run: runs[0]! };
    },
    async refused(method, params) {
      const before = editRuns().length;
      const frame = await client.send(method, params);
      expect(frame.ok, `${method} is refused`).toBe(false);
      // Nothing changed: no DOM call, no history state, no ActionManager event.
      expect(editRuns().slice(before).flatMap((r) => [...r.calls, ...r.history, ...r.actions])).toEqual([]);
      return frame.error as never;
    },
  };
}
