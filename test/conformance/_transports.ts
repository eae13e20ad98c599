import { BUILTIN_METHODS } from "../../src/methods/index.js";
import type { ProtocolError } from "../../src/protocol/index.js";
import type { Harness } from "../helpers/bridge.js";
import type { TestClient } from "../helpers/ws-client.js";

export interface Outcome {
  ok: boolean;
  result?: unknown;
  error?: ProtocolError;
  /** HTTP status (HTTP transport only). */
  status?: number;
}

/** One way of calling a built-in method; the conformance cases run unchanged over each. */
export interface ConformanceTransport {
  readonly name: "ws" | "http";
  /** Whether the method is reachable over this transport (scripts are WS-only). */
  supports(method: string): boolean;
  call(method: string, params?: Record<string, unknown>): Promise<Outcome>;
}

/**
 * `transport`'s calls that must succeed: each answers its result, or throws naming the method and the error code
 * (the whole outcome on the error's `outcome`).
 */
export function succeeding(transport: ConformanceTransport): (method: string, params: Record<string, unknown>) => Promise<unknown> {
  return async (method, params) => {
    const outcome = await transport.call(method, params);
    if (!outcome.ok) throw Object.assign(new Error(`${method}: ${outcome.error?.code}: ${outcome.error?.message}`), { outcome });
    return outcome.result;
  };
}

const ROUTES = new Map(BUILTIN_METHODS.filter((m) => m.http).map((m) => [m.name, m.http!]));

export async function wsTransport(harness: Harness): Promise<ConformanceTransport> {
  const client: TestClient = await harness.connect();
  return {
    name: "ws",
    supports: () => true,
    async call(method, params) {
      const frame = await client.send(method, params);
      return frame.ok ? { ok: true, result: frame.result } : { ok: false, error: frame.error as ProtocolError };
    },
  };
}

/** Calls the HTTP route of a method: path params substituted, the rest in the query (GET) or the body (POST). */
export function httpTransport(harness: Harness): ConformanceTransport {
  return {
    name: "http",
    supports: (method) => ROUTES.has(method),
    async call(method, params = {}) {
      const route = ROUTES.get(method);
      if (route === undefined) throw new Error(`${method} has no HTTP route`);
      const rest: Record<string, unknown> = { ...params };
      const path = route.path.replace(/:(\w+)/g, (_, name: string) => {
        const value = rest[name];
        delete rest[name];
        return encodeURIComponent(String(value));
      });
      let response: Response;
      if (route.verb === "GET") {
        const query = new URLSearchParams(Object.entries(rest).map(([k, v]): [string, string] => [k, String(v)]));
        response = await harness.http(query.toString() !== "" ? `${path}?${query}` : path);
      } else {
        response = await harness.http(path, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(rest),
        });
      }
      const body = (await response.json()) as unknown;
      return response.status === 200
        ? { ok: true, result: body, status: 200 }
        : { ok: false, error: body as ProtocolError, status: response.status };
    },
  };
}

export const TRANSPORTS = [
  { name: "ws", make: wsTransport },
  { name: "http", make: async (h: Harness) => httpTransport(h) },
] as const;
