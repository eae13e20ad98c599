/**
 * Event-stream readers that never read, against the bridge as users run it (the CLI in a child process, its editor
 * in a process of its own): hundreds of `/events` readers subscribed to previews stop reading while another client
 * changes the active layer. The bridge's memory (with its editors, sampled every 10 ms) stays within the streams'
 * total budget, the changes are answered, and another client's `/health` answers throughout.
 */
import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { mib, startBridgeProcess, type BridgeProcess } from "../helpers/bridge-process.js";
import { TestClient } from "../helpers/ws-client.js";

const MiB = 1024 * 1024;
/** Room above the budget for what any busy Node process grows by on its own (see abuse.test.ts). */
const RSS_SLACK_BYTES = 64 * MiB;
/** `/health` must answer; generous, as in abuse.test.ts: a blocked event loop stalls it for many seconds. */
const HEALTH_WORST_MS = 4_000;
const READERS = 300;
const CHANGES = 60;

let bridge: BridgeProcess | undefined;
const sockets: Socket[] = [];
const clients: TestClient[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const client of clients.splice(0)) client.ws.terminate();
  await bridge?.stop();
  bridge = undefined;
});

interface StreamCounts {
  open: number;
  slowCloses: number;
  budgetCloses?: number;
}

async function streams(served: BridgeProcess): Promise<StreamCounts> {
  return ((await (await fetch(`${served.url}/status`)).json()) as { eventStreams: StreamCounts }).eventStreams;
}

/** A reader that asks for a stream, then never reads a byte of it. */
function stuckReader(port: number, query: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(`GET /events?${query} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`);
      socket.pause();
      resolve(socket);
    });
    socket.once("error", reject);
    sockets.push(socket);
  });
}

/** A 300×300 PNG of noise: its preview (at most 300 px) stays large, as a photo's does. */
function noisePng(): Promise<Buffer> {
  return sharp(randomBytes(300 * 300 * 4), { raw: { width: 300, height: 300, channels: 4 } }).png().toBuffer();
}

describe("event-stream readers that never read (child-process bridge)", () => {
  it(`${READERS} stuck preview readers: memory stays within sseTotalBytes, the layer changes are answered, /health answers throughout`, { timeout: 180_000 }, async () => {
    const total = 16 * MiB;
    const served = await startBridgeProcess({ limits: { sseTotalBytes: "16MiB", sseMaxStreamsPerAddress: READERS + 10 } });
    bridge = served;
    const driver = await TestClient.open(served.wsUrl);
    clients.push(driver);
    // Two layers of noise, so each change of the active layer sends a preview of a few hundred KiB.
    const ids: number[] = [];
    for (let i = 0; i < 2; i++) {
      const png = await noisePng();
      const layer = await driver.call<{ id: number }>("layer:importImage", { image: `data:image/png;base64,${png.toString("base64")}`, name: `noise-${i}` });
      ids.push(layer.id);
    }
    await driver.call("event:subscribe", { type: "layer:previewChange" });
    let changes = 0;
    let previewBytes = 0;
    const change = async (): Promise<void> => {
      changes++;
      await driver.call("layer:select", { ids: [ids[changes % 2]!] });
      const event = await driver.nth((f) => f.type === "layer:previewChange", changes);
      previewBytes = Math.max(previewBytes, Buffer.byteLength(JSON.stringify(event)));
    };
    // The same changes without readers first: what the editor and the bridge grow by for the work itself (the
    // editor's encoders, the event log) is in the baseline, and what follows is the readers' cost.
    for (let i = 0; i < CHANGES; i++) await change();
    served.reset();
    for (let i = 0; i < READERS; i++) await stuckReader(served.port, "type=layer:previewChange");
    while ((await streams(served)).open < READERS) await served.morePings(1);
    for (let i = 0; i < CHANGES; i++) await change();
    await served.morePings(3);
    const health = served.health();
    expect(health.failures).toEqual([]);
    expect(health.worstMs).toBeLessThan(HEALTH_WORST_MS);
    const rss = served.rss();
    if (process.env["RELIABILITY_REPORT"] !== undefined) {
      console.info(`${READERS} stuck SSE readers, ${CHANGES} previews of ${(previewBytes / 1024).toFixed(0)} KiB: RSS +${mib(rss?.growth ?? 0)}, /health worst ${health.worstMs.toFixed(0)} ms`);
    }
    if (rss !== undefined) {
      expect(rss.growth, `RSS grew ${mib(rss.growth)} over ${mib(rss.baseline)}; bound ${mib(total + RSS_SLACK_BYTES)}`).toBeLessThan(total + RSS_SLACK_BYTES);
    }
    // Kept per reader, the previews would hold far more than the budget.
    expect(READERS * previewBytes).toBeGreaterThan(4 * total);
    // The readers furthest behind were closed to keep the total (they may resume with their last id).
    expect((await streams(served)).budgetCloses ?? 0).toBeGreaterThan(0);
  });
});
