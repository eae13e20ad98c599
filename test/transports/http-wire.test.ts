import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { startBridge } from "../helpers/bridge.js";

/** One raw answer: the status line's code and reason phrase, the headers, and the body's first chunk. */
function raw(url: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; reason: string; headers: Record<string, unknown>; first: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { headers }, (res) => {
      res.once("data", (chunk: Buffer) => {
        resolve({ status: res.statusCode ?? 0, reason: res.statusMessage ?? "", headers: res.headers, first: String(chunk) });
        res.destroy();
      });
    });
    req.on("error", reject);
    req.end();
  });
}

describe("HTTP on the wire", () => {
  it("a 401 names the scheme and realm in WWW-Authenticate, and status lines carry their reason phrase", async () => {
    const harness = await startBridge({ token: "wire-token" });
    const refused = await raw(harness.bridge.url, "/status");
    expect(refused).toMatchObject({ status: 401, reason: "Unauthorized", headers: { "www-authenticate": 'Bearer realm="image-editor-bridge"' } });
    const missing = await raw(harness.bridge.url, "/no/such/route", { authorization: "Bearer wire-token" });
    expect(missing).toMatchObject({ status: 404, reason: "Not Found" });
    expect(missing.headers["www-authenticate"]).toBeUndefined();
    expect(await raw(harness.bridge.url, "/status", { authorization: "Bearer wire-token" })).toMatchObject({ status: 200, reason: "OK" });
  });

  it("an event stream opens with a retry: field, so an EventSource knows how soon to reconnect", async () => {
    const harness = await startBridge();
    const stream = await raw(harness.bridge.url, "/events?type=selection:changed");
    expect(stream.status).toBe(200);
    expect(stream.first).toMatch(/^: connected\nretry: \d+\n\n/);
  });
});
