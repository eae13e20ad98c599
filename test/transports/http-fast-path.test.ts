import { describe, expect, it } from "vitest";
import { startBridge } from "../helpers/bridge.js";

/*
 * Plain GETs of `/health` and of fixed-path method routes are answered before the router (`fast-path.ts`). A
 * request with an allowed `Origin` always goes through the router, so the two answers can be set side by side: they
 * must be the same but for the CORS headers the Origin asks for.
 */

const ORIGIN = "http://localhost:5173";
/** The editor in the test's own thread: these tests are about the transport, and it starts at once. */
const INLINE = { isolation: "inline" } as const;
/** Left out of the comparison: what the Origin adds, the date, and the framing (the router chunks once it adds headers). */
const IGNORED = new Set(["access-control-allow-origin", "access-control-expose-headers", "vary", "date", "content-length", "transfer-encoding"]);

async function both(url: string, init: RequestInit = {}): Promise<Array<{ status: number; headers: Record<string, string>; body: string }>> {
  const read = async (headers: Record<string, string>) => {
    const res = await fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } });
    const kept = Object.fromEntries([...res.headers].filter(([name]) => !IGNORED.has(name)));
    const body = await res.text();
    // Whichever framing, the body is whole: a length, when given, is the body's.
    if (res.headers.has("content-length") && init.method !== "HEAD") expect(Number(res.headers.get("content-length"))).toBe(Buffer.byteLength(body));
    return { status: res.status, headers: kept, body };
  };
  return [await read({}), await read({ origin: ORIGIN })];
}

describe("GET routes answered before the router", () => {
  it("answer as the router does: status, headers and body of a method route, and of its failure", async () => {
    const harness = await startBridge({ embedded: INLINE });
    await harness.http("/selection/set", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ rect: { x: 1, y: 2, width: 30, height: 40 } }) });
    const [fast, routed] = await both(`${harness.bridge.url}/selection/area`);
    expect(fast).toEqual(routed);
    expect(JSON.parse(fast!.body)).toEqual({ x: 1, y: 2, width: 30, height: 40 });
    const empty = await startBridge({ embedded: { ...INLINE, sample: false } });
    const [fastError, routedError] = await both(`${empty.bridge.url}/document/current`);
    expect(fastError!.status).toBeGreaterThanOrEqual(400);
    expect(fastError).toEqual(routedError);
  });

  it("/health answers its body with the router's status and headers, for GET and HEAD", async () => {
    const harness = await startBridge({ embedded: INLINE });
    for (const method of ["GET", "HEAD"]) {
      const [fast, routed] = await both(`${harness.bridge.url}/health`, { method });
      expect({ ...fast, body: "" }).toEqual({ ...routed, body: "" });
      if (method === "GET") expect(Object.keys(JSON.parse(fast!.body))).toEqual(Object.keys(JSON.parse(routed!.body)));
      else expect(fast!.body).toBe("");
    }
  });

  it("keep the access rules: without the token a route is refused as by the router, with it answered", async () => {
    const harness = await startBridge({ token: "s3cret", embedded: INLINE });
    const [fast, routed] = await both(`${harness.bridge.url}/selection/area`);
    expect(fast!.status).toBe(401);
    expect(fast).toEqual(routed);
    const granted = await both(`${harness.bridge.url}/selection/area`, { headers: { authorization: "Bearer s3cret" } });
    expect(granted[0]!.status).toBe(200);
    expect(granted[0]).toEqual(granted[1]);
  });
});
