/**
 * Webhook receivers that answer 200 and then stream a body without end, against the bridge as users run it (the
 * CLI in a child process). The bridge reads the status and a few KiB of the body for the delivery log, then closes
 * the connection: it never drains the rest until the attempt's deadline. Another client's `/health` answers
 * throughout, and the memory of the bridge and its editor stays flat.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { mib, startBridgeProcess, type BridgeProcess } from "../helpers/bridge-process.js";
import { TestClient } from "../helpers/ws-client.js";

const MiB = 1024 * 1024;
/** Receivers at once: the audit stalled every client with 30. */
const RECEIVERS = 12;
/** Kept per answer (the limit, scaled to a figure the test can see being respected). */
const BODY_BYTES = 2_048;
/**
 * The attempt's deadline, far beyond the test's own: a bridge that drains a body until the deadline never closes
 * the receivers' connections within the test, and fails it.
 */
const ATTEMPT_DEADLINE = "120s";
/** Generous bounds that only a stall of several seconds or an unbounded read can pass (see abuse.test.ts). */
const HEALTH_WORST_MS = 4_000;
const RSS_GROWTH_BOUND = 96 * MiB;
/** What one receiver may have written before its connection was closed: the socket buffers of both ends, at most. */
const WRITTEN_BOUND = 32 * MiB;

interface Streamer {
  readonly server: Server;
  readonly url: string;
  /** Bytes of body written so far, per request. */
  readonly written: number[];
  /** Resolves once the bridge has closed `n` of the answers this receiver was streaming. */
  closedAnswers(n: number): Promise<void>;
}

const servers: Server[] = [];
const clients: TestClient[] = [];
let bridge: BridgeProcess | undefined;

afterEach(async () => {
  for (const client of clients.splice(0)) client.ws.terminate();
  await bridge?.stop();
  bridge = undefined;
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

/** A receiver answering 200 with a body that never ends: 64 KiB chunks, as fast as the bridge takes them. */
async function streamer(): Promise<Streamer> {
  const written: number[] = [];
  let closed = 0;
  const waiters: Array<{ n: number; wake: () => void }> = [];
  const chunk = Buffer.alloc(64 * 1024, "x");
  const server = createServer((req, res: ServerResponse) => {
    req.resume();
    req.once("end", () => {
      const index = written.push(0) - 1;
      res.writeHead(200, { "content-type": "text/plain" });
      let open = true;
      const pump = (): void => {
        while (open) {
          written[index]! += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
      };
      res.once("close", () => {
        open = false;
        closed++;
        for (const w of waiters.filter((x) => x.n <= closed)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.wake();
        }
      });
      pump();
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  servers.push(server);
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    written,
    closedAnswers: (n) => (closed >= n ? Promise.resolve() : new Promise((wake) => waiters.push({ n, wake }))),
  };
}

interface Delivery {
  status: number | null;
  ok: boolean;
  responseBody?: string;
  responseBodyCut?: boolean;
}

describe("webhook receivers that stream an endless body", () => {
  it("the bridge keeps the status and a few KiB of each body, closes the connection, counts the cut bodies, and /health answers throughout", { timeout: 60_000 }, async () => {
    const receivers = await Promise.all(Array.from({ length: RECEIVERS }, () => streamer()));
    bridge = await startBridgeProcess({
      limits: { webhookTimeoutMs: ATTEMPT_DEADLINE, webhookResponseBodyBytes: BODY_BYTES },
      args: ["--allow-private-webhooks", ...receivers.flatMap((r) => ["--webhook", `${r.url}#selection:changed`])],
    });
    const served = bridge;
    const client = await TestClient.open(served.wsUrl);
    clients.push(client);
    await client.call("document:layers");
    served.reset();

    // Two deliveries per receiver, one after the other: the second goes only once the first attempt is over.
    await client.call("selection:set", { rect: { x: 0, y: 0, width: 4, height: 4 } });
    await Promise.all(receivers.map((r) => r.closedAnswers(1)));
    await client.call("selection:set", { rect: { x: 1, y: 1, width: 4, height: 4 } });
    await Promise.all(receivers.map((r) => r.closedAnswers(2)));

    for (const receiver of receivers) {
      expect(receiver.written).toHaveLength(2);
      for (const bytes of receiver.written) expect(bytes, `a receiver wrote ${mib(bytes)} before its answer was closed`).toBeLessThan(WRITTEN_BOUND);
    }

    // The delivery log holds both attempts as delivered (the status was 200), each with the start of its body.
    const status = (await (await fetch(`${served.url}/status`)).json()) as { webhooks: { hooks: Array<{ id: string }>; bodiesCut: number } };
    expect(status.webhooks.hooks).toHaveLength(RECEIVERS);
    for (const hook of status.webhooks.hooks) {
      let log: { deliveries: Delivery[] } = { deliveries: [] };
      while (log.deliveries.length < 2) log = (await (await fetch(`${served.url}/webhooks/${hook.id}/deliveries`)).json()) as typeof log;
      for (const delivery of log.deliveries) {
        expect(delivery).toMatchObject({ status: 200, ok: true, responseBodyCut: true });
        expect(delivery.responseBody).toBe("x".repeat(BODY_BYTES));
      }
    }
    const after = (await (await fetch(`${served.url}/status`)).json()) as typeof status;
    expect(after.webhooks.bodiesCut).toBe(2 * RECEIVERS);
    const metrics = await (await fetch(`${served.url}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`^bridge_webhook_response_bodies_cut_total ${2 * RECEIVERS}$`, "m"));

    await served.morePings(3);
    const health = served.health();
    expect(health.failures).toEqual([]);
    expect(health.worstMs).toBeLessThan(HEALTH_WORST_MS);
    const rss = served.rss();
    if (rss !== undefined) expect(rss.growth, `RSS grew ${mib(rss.growth)} over ${mib(rss.baseline)}`).toBeLessThan(RSS_GROWTH_BOUND);
  });
});
