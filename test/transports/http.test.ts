import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { eventually } from "../helpers/gc.js";
import { ScriptedHost } from "../helpers/scripted-host.js";

describe("HTTP mirror", () => {
  it("results are bare JSON without an envelope", async () => {
    const harness = await startOnSharedEditor();
    const response = await harness.http("/document/current");
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ name: "Sample" });
    expect(await (await harness.http("/selection/area")).text()).toBe("null");
  });

  it("Accept: image/png answers an image route with the raw bytes", async () => {
    const harness = await startOnSharedEditor();
    const response = await harness.http("/image/export-document", {
      method: "POST",
      headers: { accept: "image/png" },
      body: JSON.stringify({ maxSize: 100 }),
    });
    expect(response.headers.get("content-type")).toBe("image/png");
    const meta = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
    expect(meta.format).toBe("png");
    expect(Math.max(meta.width!, meta.height!)).toBe(100);
  });

  it("Accept: image/webp picks the export format when the body names none", async () => {
    const harness = await startOnSharedEditor();
    const response = await harness.http("/image/export-layer", { method: "POST", headers: { accept: "image/webp" } });
    expect(response.headers.get("content-type")).toBe("image/webp");
    expect((await sharp(Buffer.from(await response.arrayBuffer())).metadata()).format).toBe("webp");
  });

  it("path and query values are coerced by the method's schema", async () => {
    const harness = await startOnSharedEditor();
    const layers = (await (await harness.http("/document/layers")).json()) as Array<{ id: number; kind: string; index: number }>;
    const group = layers.find((l) => l.kind === "group")!;
    const byId = (await (await harness.http(`/layer/by-id/${group.id}?getChildren=true`)).json()) as { children?: unknown[] };
    expect(byId.children?.length).toBeGreaterThan(0);
    const byIndex = (await (await harness.http(`/layer/by-index/${group.index}?getChildren=false`)).json()) as { id: number; children?: unknown };
    expect(byIndex.id).toBe(group.id);
    expect(byIndex.children).toBeUndefined();
    const preview = await harness.http(`/image/preview/index:${group.index}`, { headers: { accept: "image/*" } });
    expect(preview.headers.get("content-type")).toBe("image/png");
    const bad = await harness.http("/layer/by-id/abc");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: "BAD_REQUEST", details: { issues: [expect.objectContaining({ path: "layerId" })] } });
  });

  it("a body that is not JSON, or not an object, answers BAD_REQUEST", async () => {
    const harness = await startOnSharedEditor();
    for (const body of ["{oops", "[1,2]", '"text"']) {
      const response = await harness.http("/selection/set", { method: "POST", body });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: "BAD_REQUEST" });
    }
  });

  it("a chunked body over the limit answers PAYLOAD_TOO_LARGE", async () => {
    const harness = await startOnSharedEditor({ limits: { maxHttpBodyBytes: 1000 } });
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode(" ".repeat(500)));
        controller.close();
      },
    });
    const response = await harness.http("/selection/set", { method: "POST", body: chunks, duplex: "half" } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
  });

  it("GET /health, /plugins, /plugins/{id}/health and /metrics", async () => {
    const harness = await startOnSharedEditor();
    const health = await (await harness.http("/health")).json();
    expect(health).toEqual({ status: "ok", name: "image-editor-bridge", version: expect.any(String), uptimeMs: expect.any(Number) });
    expect(await (await harness.http("/plugins")).json()).toEqual({ plugins: [], failed: [] });
    const missing = await harness.http("/plugins/nope/health");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: "PLUGIN_NOT_FOUND", source: "plugin" });
    await harness.http("/document/current");
    const metrics = await (await harness.http("/metrics")).text();
    expect(metrics).toMatch(/^bridge_request_duration_seconds_count\{method="document:current",transport="http",editor="[^"]+"\} 1$/m);
  });

  it("a foreign Origin is refused 403; a loopback Origin gets CORS headers and preflight answers", async () => {
    const harness = await startOnSharedEditor();
    const evil = await harness.http("/document/current", { headers: { origin: "https://evil.example" } });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ code: "FORBIDDEN" });
    const local = await harness.http("/document/current", { headers: { origin: "http://127.0.0.1:3000" } });
    expect(local.status).toBe(200);
    expect(local.headers.get("access-control-allow-origin")).toBe("http://127.0.0.1:3000");
    const preflight = await harness.http("/image/export-document", {
      method: "OPTIONS",
      headers: { origin: "http://localhost:3000", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
  });

  it("with a token, requests need Authorization: Bearer", async () => {
    const harness = await startOnSharedEditor({ token: "t0ken" });
    const denied = await harness.http("/document/current");
    expect(denied.status).toBe(401);
    expect(await denied.json()).toMatchObject({ code: "UNAUTHORIZED" });
    const allowed = await harness.http("/document/current", { headers: { authorization: "Bearer t0ken" } });
    expect(allowed.status).toBe(200);
  });

  it("with --public-health, /health and /ready answer without the token; /status and data routes still need it", async () => {
    const closed = await startOnSharedEditor({ token: "t0ken" });
    for (const path of ["/health", "/ready"]) expect((await closed.http(path)).status, path).toBe(401);
    const harness = await startOnSharedEditor({ token: "t0ken", publicHealth: true });
    expect(await (await harness.http("/health")).json()).toMatchObject({ status: "ok" });
    const ready = await harness.http("/ready");
    expect(ready.status).toBe(200);
    const body = JSON.stringify(await ready.json());
    expect(body).toContain('"status":"ok"');
    // Nothing a caller without the token should learn: no paths, client or editor ids.
    expect(body).not.toMatch(/\/|embedded-1/);
    expect((await harness.http("/health", { method: "HEAD" })).status).toBe(200);
    for (const path of ["/status", "/document/current", "/plugins", "/metrics"]) expect((await harness.http(path)).status, path).toBe(401);
    expect((await harness.http("/health", { method: "POST" })).status).toBe(401);
    expect((await harness.http("/ready", { headers: { origin: "https://evil.example" } })).status).toBe(403);
  });

  it("/ready says degraded (200) when a plugin failed and down (503) when no editor is ready, with reasons", async () => {
    const broken = fileURLToPath(new URL("../plugins/fixtures/import-throws", import.meta.url));
    const degraded = await startOnSharedEditor({ plugins: [broken] });
    const answer = await degraded.http("/ready");
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({
      status: "degraded",
      reasons: [{ component: "plugins", status: "degraded", message: "1 plugin failed to load" }],
      editors: { total: 1, ready: 1 },
      plugins: { loaded: 0, failed: 1 },
    });
    const host = new ScriptedHost();
    const harness = await startOnSharedEditor({ host });
    host.lose("editor crashed", 1_000_000);
    await eventually(async () => (await harness.http("/ready")).status === 503, "/ready to answer 503");
    expect(await (await harness.http("/ready")).json()).toMatchObject({
      status: "down",
      reasons: [{ component: "editors", status: "down", message: expect.stringMatching(/^no editor is ready \(scripted (backoff|connecting)\)$/) }],
      editors: { total: 1, ready: 0 },
    });
    // Liveness is unaffected: the process answers.
    expect((await harness.http("/health")).status).toBe(200);
    const status = (await (await harness.http("/status")).json()) as { status: string; editors: { lastError?: string }[] };
    expect(status.status).toBe("down");
    expect(status.editors[0]!.lastError).toMatch(/editor (crashed|not reachable)/);
  });

  it("a foreign Host header is refused without a token", async () => {
    const harness = await startOnSharedEditor();
    // fetch forbids setting Host, so use node:http.
    const { request } = await import("node:http");
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${harness.bridge.url}/health`, { headers: { host: "rebind.example" } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(403);
  });
});

describe("listening off loopback", () => {
  it("requires a token", async () => {
    await expect(startOnSharedEditor({ listen: { host: "0.0.0.0" } })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});

describe("published schema", () => {
  it("GET /schema publishes JSON Schema for every method and event, derived from the method table", async () => {
    const harness = await startOnSharedEditor();
    const schema = (await (await harness.http("/schema")).json()) as {
      protocolVersion: number;
      methods: Record<string, { params: { type?: string }; http?: { verb: string; path: string } }>;
      events: Record<string, unknown>;
    };
    expect(schema.protocolVersion).toBe(1);
    // The 84 built-in methods (40 of them the editing vocabulary, 4 the history, font:list, document:layerComps, template:render), plus request:cancel and batch, which the
    // dispatcher serves itself.
    expect(Object.keys(schema.methods)).toHaveLength(86);
    expect(schema.methods["webhook:deliveries"]?.http).toEqual({ verb: "GET", path: "/webhooks/{id}/deliveries" });
    expect(schema.methods["layer:getInfoById"]?.http).toEqual({ verb: "GET", path: "/layer/by-id/{layerId}" });
    expect(schema.methods["jsx:run"]?.http).toBeUndefined();
    expect(schema.methods["batch"]?.http).toEqual({ verb: "POST", path: "/batch" });
    expect(schema.methods["request:cancel"]?.params.type).toBe("object");
    expect(Object.keys(schema.events)).toEqual(expect.arrayContaining(["selection:changed", "progress"]));
    expect((schema as unknown as { features: string[] }).features).toEqual(["binary", "cancel", "progress", "batch", "edit", "history"]);
  });
});

describe("requests h3 refuses before routing", () => {
  it("a malformed URL answers BAD_REQUEST as a ProtocolError", async () => {
    const harness = await startOnSharedEditor();
    const { request } = await import("node:http");
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${harness.bridge.url}/layer/by-id/%ZZ`, (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(400);
    expect(JSON.parse(body)).toMatchObject({ code: "BAD_REQUEST" });
  });
});
