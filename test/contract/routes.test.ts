import { H3 } from "h3";
import { describe, expect, it, vi } from "vitest";
import type { OpenApiDocument } from "../../src/methods/contract/index.js";
import { startBridge } from "../helpers/bridge.js";

/**
 * The routes no single path stands for: every path not found (404, or 405 with `Allow`) and a plugin's own routes,
 * which the contract lists per loaded plugin.
 */
const CATCH_ALLS = new Set(["/**", "/plugins/:id/**"]);

/** h3's route pattern as an OpenAPI path: `:id` → `{id}`, a trailing `**` → `{path}`. */
const openApiPathOf = (route: string): string => route.replace(/:(\w+)/g, "{$1}").replace(/\/\*\*$/, "/{path}");

describe("the contract and the server's routes", () => {
  it("every route the server answers is in /openapi.json, with its verb", async () => {
    // The routes as the server registers them, read where h3 adds each one.
    const added = vi.spyOn(H3.prototype, "~addRoute");
    let routes: Array<{ method: string; route: string }>;
    let openapi: OpenApiDocument;
    try {
      const harness = await startBridge();
      routes = added.mock.calls.map(([route]) => route as { method: string; route: string });
      openapi = (await (await harness.http("/openapi.json")).json()) as OpenApiDocument;
    } finally {
      added.mockRestore();
    }
    const served = routes.filter((r) => !CATCH_ALLS.has(r.route) && r.method !== "HEAD");
    expect(served.map((r) => r.route)).toEqual(expect.arrayContaining(["/health", "/mcp", "/dashboard", "/plugins/:id/health"]));
    const missing = served.filter((r) => openapi.paths[openApiPathOf(r.route)]?.[r.method.toLowerCase()] === undefined).map((r) => `${r.method} ${r.route}`);
    expect(missing).toEqual([]);
  });

  it("POST /plugins/{id}/reload, answered by the bridge for every plugin, is in /openapi.json", async () => {
    const harness = await startBridge();
    const openapi = (await (await harness.http("/openapi.json")).json()) as OpenApiDocument;
    expect(openapi.paths["/plugins/{id}/reload"]?.["post"]).toMatchObject({ operationId: "reloadPlugin" });
    // No such plugin: the route exists and says so, rather than a bare 404 of an unknown path.
    const answer = await harness.http("/plugins/nope/reload", { method: "POST" });
    expect(answer.status).toBe(404);
    expect(((await answer.json()) as { code: string }).code).toBe("PLUGIN_NOT_FOUND");
  });
});
