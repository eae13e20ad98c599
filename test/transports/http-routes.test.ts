import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { ProtocolErrorSchema } from "../../src/protocol/index.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { ScriptedHost } from "../helpers/scripted-host.js";

const STATS_PLUGIN = fileURLToPath(new URL("../plugins/fixtures/stats", import.meta.url));

/** Asserts a 405 answer: the `Allow` header and a METHOD_NOT_ALLOWED ProtocolError naming the same verbs. */
async function expectNotAllowed(response: Response, allow: string): Promise<Record<string, unknown>> {
  expect(response.status).toBe(405);
  expect(response.headers.get("allow")).toBe(allow);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  const body = (await response.json()) as Record<string, unknown>;
  expect(ProtocolErrorSchema.safeParse(body).success).toBe(true);
  expect(body).toMatchObject({ code: "METHOD_NOT_ALLOWED", retryable: false, details: { allow: allow.split(", ") } });
  return body;
}

describe("a wrong verb on a known route", () => {
  it("answers 405 with Allow on method routes, with and without path params (the README's curl -X POST /document/current)", async () => {
    const harness = await startOnSharedEditor();
    const body = await expectNotAllowed(await harness.http("/document/current", { method: "POST" }), "GET, HEAD");
    expect(body["message"]).toBe("/document/current answers GET, HEAD, not POST");
    await expectNotAllowed(await harness.http("/image/export-document"), "POST");
    await expectNotAllowed(await harness.http("/layer/by-id/3", { method: "POST" }), "GET, HEAD");
    await expectNotAllowed(await harness.http("/image/preview/index:0", { method: "DELETE" }), "GET, HEAD");
  });

  it("answers 405 with Allow on the bridge's own views", async () => {
    const harness = await startOnSharedEditor();
    for (const path of ["/", "/health", "/ready", "/status", "/schema", "/metrics", "/plugins"]) {
      await expectNotAllowed(await harness.http(path, { method: "POST" }), "GET, HEAD");
    }
  });

  it("HEAD on a GET route answers like GET without a body", async () => {
    const harness = await startOnSharedEditor();
    for (const path of ["/", "/health", "/document/current", "/layer/by-id/1"]) {
      const [get, head] = [await harness.http(path), await harness.http(path, { method: "HEAD" })];
      expect([path, head.status, head.headers.get("content-type")]).toEqual([path, get.status, get.headers.get("content-type")]);
      expect(await head.text()).toBe("");
    }
  });

  it("answers 405 with Allow on a plugin's routes, naming the plugin", async () => {
    const harness = await startOnSharedEditor({ plugins: [STATS_PLUGIN], pluginConfig: { stats: { greeting: "hi" } } });
    const body = await expectNotAllowed(await harness.http("/plugins/stats/echo"), "POST");
    expect(body).toMatchObject({ pluginId: "stats" });
    await expectNotAllowed(await harness.http("/plugins/stats/layers/2", { method: "PUT" }), "GET, HEAD");
  });

  it("an unknown path stays 404 NOT_FOUND without Allow", async () => {
    const harness = await startOnSharedEditor();
    for (const [path, method] of [["/document/nope", "GET"], ["/layer/by-id", "POST"], ["/layer/by-id/3/extra", "GET"]] as const) {
      const response = await harness.http(path, { method });
      expect(response.status).toBe(404);
      expect(response.headers.get("allow")).toBeNull();
      expect(await response.json()).toMatchObject({ code: "NOT_FOUND" });
    }
  });

  it("is judged after the access rules: without the token it is 401, not 405", async () => {
    const harness = await startOnSharedEditor({ token: "t0ken" });
    expect((await harness.http("/document/current", { method: "POST" })).status).toBe(401);
    const allowed = await harness.http("/document/current", { method: "POST", headers: { authorization: "Bearer t0ken" } });
    await expectNotAllowed(allowed, "GET, HEAD");
  });
});

describe("params errors over HTTP", () => {
  it("the README's curl /layer/by-id/abc answers 400 with the first issue in the message", async () => {
    const harness = await startOnSharedEditor();
    const response = await harness.http("/layer/by-id/abc");
    expect(response.status).toBe(400);
    const body = (await response.json()) as { code: string; message: string; details: { issues: Array<{ path: string; message: string }> } };
    expect(body.code).toBe("BAD_REQUEST");
    expect(body.message).toBe(`Invalid params for layer:getInfoById: layerId: ${body.details.issues[0]!.message}`);
  });
});

describe("image content negotiation", () => {
  it("/layer/current-preview honours Accept: image/* with the raw PNG (the README's curl -H 'Accept: image/png' -o preview.png)", async () => {
    const harness = await startOnSharedEditor();
    const json = (await (await harness.http("/layer/current-preview")).json()) as { width: number; height: number; data: string };
    expect(json.data).toMatch(/^data:image\/png;base64,/);
    for (const accept of ["image/png", "image/*", "text/html, image/*;q=0.8"]) {
      const response = await harness.http("/layer/current-preview", { headers: { accept } });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("image/png");
      expect(response.headers.get("x-image-width")).toBe(String(json.width));
      expect(response.headers.get("x-image-height")).toBe(String(json.height));
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(bytes.equals(Buffer.from(json.data.split(",")[1]!, "base64"))).toBe(true);
      expect((await sharp(bytes).metadata()).width).toBe(json.width);
    }
  });

  it("/layer/current-preview with no active layer answers 204 to an image Accept, null to JSON", async () => {
    const host = new ScriptedHost();
    const tree = host.getDocumentTree.bind(host);
    host.getDocumentTree = async (ctx, documentId) => {
      const found = await tree(ctx, documentId);
      return { ...found, document: { ...found.document, activeLayerIds: [] } };
    };
    const harness = await startOnSharedEditor({ host });
    const image = await harness.http("/layer/current-preview", { headers: { accept: "image/png" } });
    expect(image.status).toBe(204);
    expect(await (await harness.http("/layer/current-preview")).text()).toBe("null");
  });

  it("an explicit format wins over Accept, and Content-Type says what was sent", async () => {
    const harness = await startOnSharedEditor();
    const response = await harness.http("/image/export-document", {
      method: "POST",
      headers: { accept: "image/png" },
      body: JSON.stringify({ format: "jpeg", maxSize: 64 }),
    });
    expect(response.headers.get("content-type")).toBe("image/jpeg");
    expect((await sharp(Buffer.from(await response.arrayBuffer())).metadata()).format).toBe("jpeg");
  });

  it("a preview asked for another image type is still PNG, labelled as such", async () => {
    const harness = await startOnSharedEditor();
    for (const path of ["/layer/current-preview", "/image/preview/current"]) {
      const response = await harness.http(path, { headers: { accept: "image/webp" } });
      expect(response.headers.get("content-type")).toBe("image/png");
      expect((await sharp(Buffer.from(await response.arrayBuffer())).metadata()).format).toBe("png");
    }
  });
});

describe("GET /", () => {
  it("answers the dashboard page, whose footer links to /health, /ready, /status, /schema and the API reference", async () => {
    const harness = await startOnSharedEditor();
    const response = await harness.http("/");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();
    for (const path of ["/health", "/ready", "/status", "/schema", "/docs", "/openapi.json", "/asyncapi.json"]) {
      expect(html).toContain(`href="${path}"`);
      expect((await harness.http(path)).status).toBeLessThan(500);
    }
    expect(html).toContain("<code>/ws</code>");
  });

  it("is public like the dashboard's other static files (no data in it), while the Origin check still applies", async () => {
    const harness = await startOnSharedEditor({ token: "t0ken" });
    expect((await harness.http("/")).status).toBe(200);
    expect((await harness.http("/status")).status).toBe(401);
    const open = await startOnSharedEditor();
    expect((await open.http("/", { headers: { origin: "https://evil.example" } })).status).toBe(403);
  });
});
