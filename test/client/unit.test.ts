import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { METHOD_SCHEMAS } from "../../src/protocol/index.js";
import { BUILTIN_METHOD_NAMES, METHOD_GROUPS } from "../../src/client/index.js";
import { backoffDelay } from "../../src/client/_internal/backoff.js";
import { endpointsOf } from "../../src/client/_internal/url.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { collect, connect, onCleanup, record } from "./_support.js";

/** A scripted bridge stand-in: answers subscribes, then sends the frames a test needs. */
async function fakeBridge(afterSubscribe: (send: (frame: unknown) => void) => void): Promise<string> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  onCleanup(() => new Promise<void>((resolve) => wss.close(() => resolve())));
  wss.on("connection", (ws) => {
    const send = (frame: unknown): void => ws.send(JSON.stringify(frame));
    send({ type: "connected", data: { clientId: "c1", resumed: false, protocolVersion: 1, server: { name: "fake", version: "0" } } });
    ws.on("message", (data) => {
      const request = JSON.parse(String(data)) as { id: string; method: string; params: { type: string } };
      send({ id: request.id, ok: true, result: { type: request.params.type, subscribed: request.method === "event:subscribe" } });
      if (request.method === "event:subscribe") afterSubscribe(send);
    });
  });
  return `ws://127.0.0.1:${(wss.address() as { port: number }).port}/ws`;
}

describe("event order", () => {
  it("a repeated seq is dropped and a skipped one is reported as a gap", async () => {
    const url = await fakeBridge((send) => {
      for (const seq of [1, 2, 2, 4, 5]) send({ type: "tick", seq, data: { seq } });
    });
    const client = connect(url);
    const lost = record(client, "$lost");
    const ticks = collect<{ seq: number }>(client, "tick");
    await ticks.nth(4);
    expect(ticks.list.map((t) => t.seq)).toEqual([1, 2, 4, 5]);
    expect(lost.list).toEqual([{ reason: "gap", events: 1 }]);
  });
});

describe("listeners", () => {
  it("a throwing listener does not stop the others and is reported on $error", async () => {
    const url = await fakeBridge((send) => send({ type: "tick", seq: 1, data: 1 }));
    const client = connect(url);
    const errors = record(client, "$error");
    client.on("tick", () => {
      throw new Error("app bug");
    });
    const ticks = collect(client, "tick");
    await ticks.nth(1);
    expect(await errors.nth(1)).toMatchObject({ code: "LISTENER_FAILED", details: { type: "tick" } });
  });

  it('a listener of "*" is refused at once: events arrive under their own types, so it would never be called', async () => {
    const harness = await startOnSharedEditor();
    const client = connect(harness.bridge.url);
    expect(() => client.on("*", () => {})).toThrow(expect.objectContaining({ code: "BAD_REQUEST", details: { type: "*" } }));
    await expect(client.subscribe("*", () => {})).rejects.toMatchObject({ code: "BAD_REQUEST" });
    // A typed call with `types` answers the list, as the bridge sends it.
    const answer = await client.invoke("event:subscribe", { types: ["selection:changed"] });
    expect(answer).toEqual({ subscriptions: [{ type: "selection:changed", subscribed: true }], ok: true });
    expect(await client.server.ping()).toMatchObject({ pong: true });
  });

  it("off() removes a once() listener of a local notification before it fires", async () => {
    const harness = await startOnSharedEditor();
    const client = connect(harness.bridge.url);
    const calls: unknown[] = [];
    const listener = (data: unknown): void => {
      calls.push(data);
    };
    client.once("$open", listener);
    client.off("$open", listener);
    const opened = record(client, "$open");
    await opened.nth(1);
    expect(calls).toEqual([]);
  });
});

describe("reconnect schedule", () => {
  it("delays grow exponentially to the cap, with the configured share of jitter", () => {
    const options = { initialDelayMs: 100, maxDelayMs: 1_000, jitter: 0.5 };
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, options, () => 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect([1, 2, 3].map((n) => backoffDelay(n, options, () => 0))).toEqual([50, 100, 200]);
    expect(backoffDelay(1, { ...options, jitter: 0 }, () => 0.3)).toBe(100);
  });

  it("after maxAttempts failed reconnects the connection gives up with CONNECTION_LOST", async () => {
    const harness = await startOnSharedEditor();
    const client = connect(harness.bridge.url, { reconnect: { initialDelayMs: 1, maxDelayMs: 4, maxAttempts: 3 } });
    await client.ready();
    const attempts = record(client, "$reconnecting");
    const closes = record(client, "$close");
    await harness.bridge.close();
    expect(await closes.nth(2)).toMatchObject({ willReconnect: false });
    expect(closes.list[0]).toMatchObject({ code: 1001, willReconnect: true });
    expect(attempts.list.map((a) => a.attempt)).toEqual([1, 2, 3]);
    await expect(client.getServerInfo()).rejects.toMatchObject({ code: "CONNECTION_LOST" });
  });
});

describe("client package", () => {
  it("knows every built-in method of the protocol", () => {
    expect([...BUILTIN_METHOD_NAMES].sort()).toEqual(Object.keys(METHOD_SCHEMAS).sort());
    for (const name of Object.keys(METHOD_SCHEMAS)) {
      const group = name.split(":")[0];
      if (name.includes(":") && group !== "event") expect(METHOD_GROUPS).toContain(group);
    }
  });

  it("bundles for browsers: no Node built-ins or Node-only packages outside the CLI and the node-* helpers", () => {
    const root = join(import.meta.dirname, "../../src/client");
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        // cli/serve.ts and its cli-*.ts parts are the Node CLI; node-*.ts are Node-only helpers the browser entry never loads
        else if (name.endsWith(".ts") && !/^(cli|node)(-[a-z-]+)?\.ts$/.test(name)) files.push(path);
      }
    };
    walk(root);
    expect(files.length).toBeGreaterThan(4);
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      // Runtime imports only (type imports are erased): relative files, nothing else. A protocol file may be
      // loaded only if it has no runtime imports itself, so zod never reaches a bundle.
      const runtime = [...text.matchAll(/^(?:import|export) (?!type )[^;]*? from "([^"]+)";/gm)].map((m) => m[1]!);
      for (const specifier of runtime) {
        expect(`${file}: ${specifier}`).toMatch(/: \.\.?\//);
        // Re-exports count too: the browser entry must never load the Node-only helpers.
        expect(`${file}: ${specifier}`).not.toMatch(/\/(cli|node)(-[a-z-]+)?\.js$/);
        if (!specifier.includes("protocol")) continue;
        const target = readFileSync(join(dirname(file), specifier.replace(/\.js$/, ".ts")), "utf8");
        expect(`${specifier}: ${[...target.matchAll(/^import (?!type )[^;]*? from "([^"]+)";/gm)].map((m) => m[1]).join(", ")}`).toBe(`${specifier}: `);
      }
      expect(text).not.toMatch(/\b(process|Buffer|require)\./);
    }
  });

  it("derives the WebSocket and HTTP addresses from any bridge URL", () => {
    expect(endpointsOf("http://127.0.0.1:7700")).toEqual({ ws: "ws://127.0.0.1:7700/ws", http: "http://127.0.0.1:7700" });
    expect(endpointsOf("wss://bridge.example/ws")).toEqual({ ws: "wss://bridge.example/ws", http: "https://bridge.example" });
    expect(endpointsOf("ws://h:1/ws", "my plugin").ws).toBe("ws://h:1/ws/my%20plugin");
    expect(() => endpointsOf("ftp://h")).toThrow(/Unsupported URL scheme/);
    expect(() => endpointsOf("nope")).toThrow(/Not a URL/);
  });
});
