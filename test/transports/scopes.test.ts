import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { get } from "node:http";
import { describe, expect, it } from "vitest";
import { allowedFor, BUILTIN_METHODS } from "../../src/methods/index.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { refusedUpgrade, TestClient } from "../helpers/ws-client.js";

/*
 * Scoped tokens: `token` reaches everything, `readToken` the methods that change nothing (less document:export and
 * the scripts), subscriptions, event streams, /status and /metrics; anything else answers FORBIDDEN naming the scope.
 */

const TOKEN = "full-s3cret";
const READ = "read-s3cret";
const STATS = fileURLToPath(new URL("../plugins/fixtures/stats", import.meta.url));
const rect = { x: 1, y: 2, width: 3, height: 4 };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const forbidden = (method: string) => ({ code: "FORBIDDEN", details: { scope: "read", method } });

describe("the read scope, by each method's own definition", () => {
  it("is every method that changes nothing, less document:export and the scripts", () => {
    const readable = BUILTIN_METHODS.filter((m) => allowedFor("read", m)).map((m) => m.name);
    const rule = BUILTIN_METHODS.filter((m) => !m.mutates && m.name !== "document:export" && !m.name.startsWith("jsx:")).map((m) => m.name);
    expect(readable).toEqual(rule);
    expect(readable).toEqual(expect.arrayContaining(["getServerInfo", "server:ping", "event:subscribe", "event:unsubscribe", "document:current", "image:exportDocument"]));
    for (const name of ["document:export", "document:save", "selection:set", "jsx:run", "jsx:execute", "webhook:add"]) expect(readable).not.toContain(name);
    // Everything is allowed to the full scope, and to callers that name none (the bridge's own, plugins).
    expect(BUILTIN_METHODS.every((m) => allowedFor("full", m) && allowedFor(undefined, m))).toBe(true);
  });

  it("SECURITY.md lists exactly the methods of the read scope", async () => {
    const text = await readFile(fileURLToPath(new URL("../../SECURITY.md", import.meta.url)), "utf8");
    const block = /<!-- read-scope -->([\s\S]*?)<!-- \/read-scope -->/.exec(text)?.[1] ?? "";
    const listed = [...block.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    expect(listed).toEqual(BUILTIN_METHODS.filter((m) => allowedFor("read", m)).map((m) => m.name));
  });
});

describe("scoped tokens over WebSocket", () => {
  it("a read-token socket says so, reads and subscribes, and is refused every call that would change something", async () => {
    const harness = await startOnSharedEditor({ token: TOKEN, readToken: READ });
    const reader = await harness.connect("/ws", { headers: bearer(READ) });
    expect(reader.hello).toMatchObject({ resumed: false });
    expect((reader.frames[0]!.data as { scope?: string }).scope).toBe("read");
    expect(await reader.call("server:ping")).toMatchObject({ pong: true });
    expect(await reader.call("document:current")).toHaveProperty("id");
    expect(await reader.call("event:subscribe", { types: ["selection:changed"] })).toMatchObject({ ok: true });

    for (const [method, params] of [
      ["selection:set", { rect }],
      ["document:export", { path: "/tmp/never.png" }],
      ["jsx:run", { script: "1" }],
      ["webhook:add", { url: "https://hooks.example/x", types: ["selection:changed"] }],
    ] as const) {
      const refused = await reader.send(method, params);
      expect(refused.error, method).toMatchObject(forbidden(method));
      expect(refused.error!.message).toMatch(/read scope/);
    }
    // A batch is judged call by call.
    const batch = await reader.call<Array<{ ok: boolean; error?: unknown }>>("batch", { requests: [{ method: "server:ping" }, { method: "selection:set", params: { rect } }] });
    expect(batch[0]!.ok).toBe(true);
    expect(batch[1]!.error).toMatchObject(forbidden("selection:set"));
    // An atomic batch's entries run as one job on the editor: refused whole, before any runs.
    const atomic = await reader.send("batch", { atomic: true, requests: [{ method: "layer:update", params: { layerId: 1, visible: false } }] });
    expect(atomic.error).toMatchObject(forbidden("layer:update"));

    // The full token's socket changes the selection; the read socket sees the event.
    const writer = await TestClient.open(harness.bridge.wsUrl, { protocols: ["image-editor-bridge", `bearer.${TOKEN}`] });
    expect((writer.frames[0]!.data as { scope?: string }).scope).toBeUndefined();
    await writer.call("selection:set", { rect });
    expect((await reader.next((f) => f.type === "selection:changed")).data).toEqual(rect);
    await writer.close();
  });

  it("a wrong token is refused 401 whichever scope it aims at", async () => {
    const harness = await startOnSharedEditor({ token: TOKEN, readToken: READ });
    expect(await refusedUpgrade(harness.bridge.wsUrl, { headers: bearer(`${READ}x`) })).toMatchObject({ status: 401, body: { code: "UNAUTHORIZED" } });
    expect(await refusedUpgrade(harness.bridge.wsUrl, {}, ["image-editor-bridge", "bearer.nope"])).toMatchObject({ status: 401 });
  });

  it("on a plugin endpoint, the plugin's methods (which may change anything) are refused to a read token", async () => {
    const harness = await startOnSharedEditor({ token: TOKEN, readToken: READ, plugins: [STATS] });
    const reader = await harness.connect("/ws/stats", { headers: bearer(READ) });
    expect((reader.frames[0]!.data as { scope?: string }).scope).toBe("read");
    expect((await reader.send("stats:count")).error).toMatchObject(forbidden("stats:count"));
    expect(await reader.call("getServerInfo")).toHaveProperty("protocolVersion");
    const writer = await harness.connect("/ws/stats", { headers: bearer(TOKEN) });
    expect(await writer.call("stats:count")).toHaveProperty("count");
  });
});

describe("scoped tokens over HTTP", () => {
  it("a read token reads method routes and views; a call that changes something is 403 FORBIDDEN naming the scope", async () => {
    const harness = await startOnSharedEditor({ token: TOKEN, readToken: READ, plugins: [STATS] });
    const read = (path: string, init: RequestInit = {}) => harness.http(path, { ...init, headers: { ...bearer(READ), ...(init.headers as Record<string, string>) } });
    const post = (path: string, body: unknown = {}) => read(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

    // The plainest GET of a method route is answered on the fast path; with a query it goes through the router.
    expect((await read("/document/current")).status).toBe(200);
    expect((await read("/document/layers?documentId=999999")).status).toBe(404);
    expect((await post("/image/export-document", { format: "png", maxSize: 16 })).status).toBe(200);
    for (const path of ["/health", "/ready", "/metrics", "/plugins", "/plugins/stats/health", "/webhooks", "/openapi.json"]) {
      expect((await read(path)).status, path).toBe(200);
    }
    const status = await read("/status");
    expect(await status.json()).toMatchObject({ scope: "read" });

    for (const [path, method] of [
      ["/selection/set", "selection:set"],
      ["/document/export", "document:export"],
      ["/webhooks", "webhook:add"],
    ] as const) {
      const refused = await post(path, path === "/selection/set" ? { rect } : {});
      expect(refused.status, path).toBe(403);
      expect(await refused.json()).toMatchObject(forbidden(method));
    }
    const batch = await post("/batch", { requests: [{ method: "document:current" }, { method: "document:close" }] });
    expect(((await batch.json()) as Array<{ ok: boolean; error?: unknown }>).map((e) => e.ok)).toEqual([true, false]);

    // A plugin's own routes and its reload: the bridge cannot tell what they change.
    for (const [verb, path] of [
      ["GET", "/plugins/stats/log"],
      ["POST", "/plugins/stats/echo"],
      ["POST", "/plugins/stats/reload"],
    ] as const) {
      const refused = await read(path, { method: verb });
      expect(refused.status, path).toBe(403);
      expect(await refused.json()).toMatchObject({ code: "FORBIDDEN", details: { scope: "read", path } });
    }

    // The full token does all of it.
    const full = (path: string, init: RequestInit = {}) => harness.http(path, { ...init, headers: { ...bearer(TOKEN), "content-type": "application/json" } });
    expect(await (await full("/status")).json()).toMatchObject({ scope: "full" });
    expect((await full("/selection/set", { method: "POST", body: JSON.stringify({ rect }) })).status).toBe(200);
    expect((await full("/plugins/stats/log")).status).toBe(200);
    expect((await harness.http("/status", { headers: bearer("nope") })).status).toBe(401);
  });

  it("an event stream opens with the read token, or with a ticket the read token fetched", async () => {
    const harness = await startOnSharedEditor({ token: TOKEN, readToken: READ });
    const direct = await openStream(`${harness.bridge.url}/events?type=selection:changed`, bearer(READ));
    const { ticket } = (await (await harness.http("/events/ticket", { method: "POST", headers: bearer(READ) })).json()) as { ticket: string };
    const viaTicket = await openStream(`${harness.bridge.url}/events?type=selection:changed&ticket=${ticket}`);
    const writer = await harness.connect("/ws", { headers: bearer(TOKEN) });
    await writer.call("selection:set", { rect });
    for (const stream of [direct, viaTicket]) expect(JSON.parse(await stream.first("selection:changed"))).toEqual(rect);
    // A spent ticket opens nothing.
    const again = await harness.http(`/events?type=selection:changed&ticket=${ticket}`);
    expect(again.status).toBe(401);
  });
});

/** An open event stream (`GET /events`) and the data of the first event of a type. */
function openStream(url: string, headers: Record<string, string> = {}): Promise<{ first(type: string): Promise<string> }> {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers: { accept: "text/event-stream", ...headers } }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`HTTP ${response.statusCode}`));
      response.setEncoding("utf8");
      let text = "";
      const waiters: Array<() => void> = [];
      response.on("data", (chunk: string) => {
        text += chunk;
        for (const wake of waiters.splice(0)) wake();
      });
      const first = async (type: string): Promise<string> => {
        for (;;) {
          const match = new RegExp(`event: ${type}\\ndata: (.*)\\n`).exec(text);
          if (match !== null) {
            response.destroy();
            return match[1]!;
          }
          await new Promise<void>((wake) => waiters.push(wake));
        }
      };
      resolve({ first });
    });
    request.once("error", reject);
  });
}
