/**
 * Connection churn against the bridge as users run it (the CLI in a child process, logging at `info`): a program
 * connects and drops in a loop. Every connect, close and disposal used to write a line of some 300 bytes; now each
 * address writes a few lines per interval and one summary with the counts of the rest, and every coming and going is
 * still accounted for: lines written plus counts summarised add up to what happened.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startBridgeProcess, type BridgeProcess } from "../helpers/bridge-process.js";
import { TestClient } from "../helpers/ws-client.js";

const CONNECTIONS = 600;
const LINES = 5;

let bridge: BridgeProcess | undefined;
afterEach(async () => {
  await bridge?.stop();
  bridge = undefined;
});

type Line = Record<string, unknown>;

function logged(served: BridgeProcess): Line[] {
  return served.lines.flatMap((line) => {
    try {
      return [JSON.parse(line) as Line];
    } catch {
      return [];
    }
  });
}

/** Lines written plus counts summarised, for one kind of line. */
function accounted(lines: Line[], msg: string, kind: "connected" | "closed" | "disposed"): number {
  const written = lines.filter((l) => l["msg"] === msg).length;
  const summarised = lines.filter((l) => l["msg"] === "client connections summarised").reduce((n, l) => n + ((l[kind] as number | undefined) ?? 0), 0);
  return written + summarised;
}

describe("connection churn (child-process bridge)", () => {
  it(`${CONNECTIONS} clients connecting and dropping write a few lines per address and interval and a summary of the rest`, { timeout: 180_000 }, async () => {
    const served = await startBridgeProcess({
      logLevel: "info",
      // Disposed soon after they drop, so their disposals are part of the churn too.
      limits: { connectionLogLines: LINES, connectionLogIntervalMs: "2s", resumeTtlMs: "500ms" },
    });
    bridge = served;
    const started = performance.now();
    for (let i = 0; i < CONNECTIONS; i += 10) {
      const batch = await Promise.all(Array.from({ length: 10 }, () => TestClient.open(served.wsUrl)));
      for (const client of batch) client.ws.terminate();
    }
    // Every coming and going is accounted for once its window's summary is out (the interval after the last one).
    let lines = logged(served);
    while (accounted(lines, "client disposed", "disposed") < CONNECTIONS || accounted(lines, "client socket closed", "closed") < CONNECTIONS) {
      await served.morePings(1);
      lines = logged(served);
    }
    const elapsed = performance.now() - started;
    expect(accounted(lines, "client connected", "connected")).toBe(CONNECTIONS);
    expect(accounted(lines, "client socket closed", "closed")).toBe(CONNECTIONS);
    expect(accounted(lines, "client disposed", "disposed")).toBe(CONNECTIONS);
    // At most LINES lines per 2 s window (one address: loopback), and one summary per window.
    const windows = Math.ceil(elapsed / 2_000) + 1;
    const churn = lines.filter((l) => ["client connected", "client socket closed", "client disposed", "client connections summarised"].includes(l["msg"] as string));
    expect(churn.length).toBeLessThanOrEqual(windows * (LINES + 1));
    const bytes = served.lines.reduce((n, line) => n + line.length + 1, 0);
    if (process.env["RELIABILITY_REPORT"] !== undefined) console.info(`connection churn, ${CONNECTIONS} connect/drop in ${(elapsed / 1000).toFixed(1)} s: ${churn.length} lines, ${bytes} bytes of log`);
    expect(bytes).toBeLessThan(CONNECTIONS * 100);
    const health = served.health();
    expect(health.failures).toEqual([]);
  });
});
