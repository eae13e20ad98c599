/**
 * MCP sessions opened and never ended (no `DELETE /mcp`), against the bridge as users run it (the CLI in a child
 * process, behind `--trust-proxy loopback` so each request names its client address in `X-Forwarded-For`): they
 * never lock other agents out, one address never holds more than its share, an idle session ends, the memory of
 * the bridge and every process under it stays bounded and another client's `/health` answers 200 throughout.
 */
import { afterEach, describe, expect, it } from "vitest";
import { mib, startBridgeProcess, type BridgeProcess } from "../helpers/bridge-process.js";

const MiB = 1024 * 1024;
const MAX_SESSIONS = 8;
const PER_ADDRESS = 3;
/** Sessions the abusers open, from many addresses and from one. */
const ABANDONED = 60;
/** Generous, as in the abuse tests: a blocked event loop stalls `/health` for 10 s and more. */
const HEALTH_WORST_MS = 4_000;
/** Sixty short-lived MCP servers, their transports and the SDK itself, with room for a busy process's own growth. */
const RSS_BOUND_BYTES = 160 * MiB;
/** How long the idle-session row waits for an idle session to end before calling it never ending. */
const EXPIRY_BOUND_MS = 30_000;
const ROW_TIMEOUT_MS = 60_000;
const PROTOCOL_VERSION = "2025-03-26";

let bridge: BridgeProcess | undefined;
afterEach(async () => {
  await bridge?.stop();
  bridge = undefined;
});

interface Answer {
  status: number;
  session: string | null;
  text: string;
}

/** One POST to `/mcp` from `address` (as the trusted proxy forwards it), its body read to the end. */
async function post(served: BridgeProcess, address: string, message: unknown, session?: string): Promise<Answer> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "x-forwarded-for": address,
  };
  if (session !== undefined) {
    headers["mcp-session-id"] = session;
    headers["mcp-protocol-version"] = PROTOCOL_VERSION;
  }
  const response = await fetch(`${served.url}/mcp`, { method: "POST", headers, body: JSON.stringify(message) });
  return { status: response.status, session: response.headers.get("mcp-session-id"), text: await response.text() };
}

/** An `initialize` from `address`, then abandoned: resolves with the session id, or the refusal. */
async function initialize(served: BridgeProcess, address: string): Promise<Answer> {
  return post(served, address, {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "abuser", version: "1.0.0" } },
  });
}

/** Whether the session still answers (200) or has ended (404). */
async function alive(served: BridgeProcess, address: string, session: string): Promise<boolean> {
  const answer = await post(served, address, { jsonrpc: "2.0", id: 2, method: "ping" }, session);
  expect([200, 404], answer.text).toContain(answer.status);
  return answer.status === 200;
}

async function start(limits: Record<string, string | number>, logLevel?: string): Promise<BridgeProcess> {
  bridge = await startBridgeProcess({ args: ["--trust-proxy", "loopback"], limits, ...(logLevel !== undefined ? { logLevel } : {}) });
  // The MCP SDK loads on the first session: before the baseline.
  const warm = await initialize(bridge, "10.0.0.1");
  expect(warm.status).toBe(200);
  bridge.reset();
  return bridge;
}

function expectServedThroughout(served: BridgeProcess): void {
  const health = served.health();
  expect(health.pings).toBeGreaterThanOrEqual(3);
  expect(health.failures).toEqual([]);
  expect(health.worstMs).toBeLessThan(HEALTH_WORST_MS);
  const rss = served.rss();
  if (rss === undefined) return; // no /proc here
  expect(rss.growth, `RSS grew ${mib(rss.growth)} over ${mib(rss.baseline)}`).toBeLessThan(RSS_BOUND_BYTES);
}

describe("MCP sessions opened and abandoned", () => {
  it("never lock another agent out: each initialize past the caps ends the longest-idle session, one address keeps only its share", { timeout: ROW_TIMEOUT_MS }, async () => {
    const served = await start({ mcpMaxSessions: MAX_SESSIONS, mcpMaxSessionsPerAddress: PER_ADDRESS });
    // An agent at work: two sessions it keeps using.
    const agent = "10.0.0.2";
    const mine: string[] = [];
    for (let i = 0; i < 2; i++) {
      const opened = await initialize(served, agent);
      expect(opened.status).toBe(200);
      mine.push(opened.session!);
    }
    // Abusers open sessions and never end them: half from many addresses, half from one. The agent works between.
    const lone = "10.0.9.9";
    const fromLone: string[] = [];
    for (let i = 0; i < ABANDONED; i++) {
      const address = i % 2 === 0 ? lone : `10.0.1.${i}`;
      const opened = await initialize(served, address);
      expect(opened.status, opened.text).toBe(200);
      if (address === lone) fromLone.push(opened.session!);
      for (const session of mine) expect(await alive(served, agent, session)).toBe(true);
    }
    // The agent's sessions were never taken; a new agent gets in at once.
    const newcomer = await initialize(served, "10.0.0.3");
    expect(newcomer.status, newcomer.text).toBe(200);
    expect(await alive(served, "10.0.0.3", newcomer.session!)).toBe(true);
    // The lone address holds at most its share: its newest sessions, its older ones ended for them.
    const loneAlive: boolean[] = [];
    for (const session of fromLone) loneAlive.push(await alive(served, lone, session));
    expect(loneAlive.filter(Boolean).length).toBeLessThanOrEqual(PER_ADDRESS);
    expect(loneAlive.slice(0, -PER_ADDRESS).some(Boolean)).toBe(false);
    // The operator sees it: never more than the cap open, sessions ended to make room, none refused.
    const { mcp } = (await (await fetch(`${served.url}/status`)).json()) as { mcp: { open: number; max: number; evicted: number; refused: number } };
    expect(mcp).toMatchObject({ max: MAX_SESSIONS, refused: 0 });
    expect(mcp.open).toBeLessThanOrEqual(MAX_SESSIONS);
    expect(mcp.evicted).toBeGreaterThanOrEqual(ABANDONED + 4 - MAX_SESSIONS);
    await served.morePings(3);
    expectServedThroughout(served);
  });

  it("a session without a request for mcpSessionIdleMs ends, while one in use stays", { timeout: ROW_TIMEOUT_MS }, async () => {
    const served = await start({ mcpSessionIdleMs: "3s" }, "info");
    const idle = (await initialize(served, "10.0.0.4")).session!;
    const used = (await initialize(served, "10.0.0.5")).session!;
    // Asking the idle session would be a request: its end is read from the bridge's log, while the other works on.
    const actor = `mcp:${idle.slice(0, 8)}`;
    const endedIdle = (): boolean => served.lines.some((line) => line.includes(actor) && line.includes("MCP session ended") && line.includes("limits.mcpSessionIdleMs"));
    const since = performance.now();
    while (!endedIdle()) {
      expect(performance.now() - since, "the idle session never ended").toBeLessThan(EXPIRY_BOUND_MS);
      expect(await alive(served, "10.0.0.5", used)).toBe(true);
    }
    expect(await alive(served, "10.0.0.4", idle)).toBe(false);
    expect(await alive(served, "10.0.0.5", used)).toBe(true);
    expectServedThroughout(served);
  });
});
