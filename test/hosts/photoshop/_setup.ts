import type { BridgeOptions } from "../../../src/bridge/options.js";
import { createPhotoshopHost, type PhotoshopLimits } from "../../../src/hosts/photoshop/index.js";
import type { HostAdapter, HostCallContext } from "../../../src/hosts/host.js";
import { startBridge, type Harness } from "../../helpers/bridge.js";
import { afterEachTest } from "../../helpers/cleanups.js";
import { FakePhotoshop, type FakePhotoshopOptions } from "../../fakes/photoshop/server.js";
import { statusOf, until } from "../../helpers/until.js";

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
