/**
 * Where webhook attempts are made. The bridge as users run it (the CLI in a child process) sends them from a thread
 * of its own, below its own priority by `webhookThreadNice`, read from `/proc`; the poster alone makes them on the
 * calling thread without a compiled thread, fails the attempts of a thread that died and starts another, and ends
 * those in flight when closed.
 */
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DeliveryPoster } from "../../src/events/webhook-poster.js";
import type { Pending, PostTarget } from "../../src/events/webhook-post.js";
import { startBridgeProcess, type BridgeProcess } from "../helpers/bridge-process.js";
import { closeReceivers, Receiver } from "../helpers/webhook-receiver.js";
import { TestClient } from "../helpers/ws-client.js";

afterEach(closeReceivers);

const clients: TestClient[] = [];
let bridge: BridgeProcess | undefined;
afterEach(async () => {
  for (const client of clients.splice(0)) client.ws.terminate();
  await bridge?.stop();
  bridge = undefined;
});

/** Each thread's niceness in a process, by thread id (field 19 of `/proc/<pid>/task/<tid>/stat`). */
function threadNiceness(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      out.set(Number(tid), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]));
    } catch {
      // The thread ended while the list was read.
    }
  }
  return out;
}

/** The niceness of the bridge's own thread (its process id is its main thread's id). */
const ownNiceness = (pid: number): number => threadNiceness(pid).get(pid)!;

/** Threads of the process whose niceness differs from the main thread's. */
function lowered(pid: number): number[] {
  const main = ownNiceness(pid);
  return [...threadNiceness(pid).values()].filter((nice) => nice !== main);
}

/** Starts a bridge process whose one webhook goes to `receiver`, makes one selection change, waits for its delivery. */
async function deliverOnce(receiver: Receiver, limits: Record<string, string | number> = {}): Promise<BridgeProcess> {
  bridge = await startBridgeProcess({ limits, args: ["--allow-private-webhooks", "--webhook", `${receiver.url}#selection:changed`] });
  const client = await TestClient.open(bridge.wsUrl);
  clients.push(client);
  await client.call("document:layers");
  expect(lowered(bridge.pid), "a thread below the bridge's priority before any delivery").toEqual([]);
  await client.call("selection:set", { rect: { x: 0, y: 0, width: 4, height: 4 } });
  await receiver.count(1);
  return bridge;
}

const pending = (n: number): Pending => ({ deliveryId: `d${n}`, type: "selection:changed", json: "{}", attempt: 1 });
const target = (url: string): PostTarget => ({ url: new URL(url), secret: "s", allowPrivate: true, timeoutMs: 10_000, maxBodyBytes: 1024 });

describe("the webhook delivery thread", () => {
  it("a bridge sends its deliveries from a thread webhookThreadNice below its own, created with the first one", { timeout: 60_000 }, async () => {
    const served = await deliverOnce(await Receiver.start());
    const main = ownNiceness(served.pid);
    expect(lowered(served.pid)).toEqual([Math.min(19, main + 10)]);
  });

  it("webhookThreadNice=0 sends them at the bridge's own priority", { timeout: 60_000 }, async () => {
    const served = await deliverOnce(await Receiver.start(), { webhookThreadNice: 0 });
    expect(lowered(served.pid)).toEqual([]);
  });

  it("without a compiled thread the attempts are made on the calling thread", async () => {
    const receiver = await Receiver.start((_n, res) => res.writeHead(204).end());
    const poster = new DeliveryPoster(10, null);
    expect(poster.offThread).toBe(false);
    const { record } = await poster.post(target(receiver.url), pending(1));
    expect(record).toMatchObject({ deliveryId: "d1", status: 204, ok: true, attempt: 1 });
    poster.close();
  });

  it("a thread that dies fails its attempts with the reason, and the next attempt starts another", async () => {
    const dir = await mkdtemp(join(tmpdir(), "webhook-thread-"));
    try {
      // A stand-in thread that takes one attempt and dies on the second.
      const entry = join(dir, "dies.mjs");
      await writeFile(
        entry,
        `import { parentPort } from "node:worker_threads";
let n = 0;
parentPort.on("message", (job) => {
  if (++n === 2) process.exit(3);
  parentPort.postMessage({ id: job.id, outcome: { record: { deliveryId: job.pending.deliveryId, ok: true, status: 200 }, bodyCut: false } });
});`,
      );
      const poster = new DeliveryPoster(0, entry);
      const url = target("http://127.0.0.1:9/hook");
      expect((await poster.post(url, pending(1))).record).toMatchObject({ deliveryId: "d1", ok: true });
      const died = await poster.post(url, pending(2));
      expect(died.record).toMatchObject({ deliveryId: "d2", attempt: 1, status: null, ok: false, error: "the webhook delivery thread exited with 3" });
      expect((await poster.post(url, pending(3))).record).toMatchObject({ deliveryId: "d3", ok: true });
      poster.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("closing ends the attempts in flight as failed: the bridge closed", async () => {
    const hanging = await Receiver.start(() => {});
    const poster = new DeliveryPoster(0);
    expect(poster.offThread).toBe(true);
    const attempt = poster.post(target(hanging.url), pending(1));
    await hanging.count(1);
    poster.close();
    expect((await attempt).record).toMatchObject({ deliveryId: "d1", status: null, ok: false, error: "the bridge closed" });
  });
});
