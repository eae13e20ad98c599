import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ERROR_RULES, ProtocolErrorSchema, type ErrorCode } from "../../src/protocol/index.js";
import type { Harness } from "../helpers/bridge.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { ScriptedHost } from "../helpers/scripted-host.js";
import { TRANSPORTS, type Outcome } from "./_transports.js";

const STATS_PLUGIN = fileURLToPath(new URL("../plugins/fixtures/stats", import.meta.url));

/** Asserts the error is a well-formed ProtocolError with its code, and the table's HTTP status over HTTP. */
function expectError(outcome: Outcome, code: ErrorCode): void {
  expect(outcome.ok).toBe(false);
  expect(ProtocolErrorSchema.safeParse(outcome.error).success).toBe(true);
  expect(outcome.error?.code).toBe(code);
  expect(outcome.error?.message.length).toBeGreaterThan(0);
  expect(outcome.error?.retryable).toBe(ERROR_RULES[code].retryable);
  if (outcome.status !== undefined) expect(outcome.status).toBe(ERROR_RULES[code].status);
}

/** The harness as a holder of `token` sees it: every socket and request carries the token. */
function withToken(harness: Harness, token: string): Harness {
  const authorization = `Bearer ${token}`;
  return {
    ...harness,
    connect: (path = "/ws", options = {}) => harness.connect(path, { ...options, headers: { authorization } }),
    http: (path, init = {}) => harness.http(path, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), authorization } }),
  };
}

describe.each(TRANSPORTS)("errors over $name", ({ name, make }) => {
  it("a call outside a read token's scope answers FORBIDDEN naming the scope and the method; a read is answered", async () => {
    const harness = await startOnSharedEditor({ token: "full-t0ken", readToken: "read-t0ken" });
    const reader = await make(withToken(harness, "read-t0ken"));
    const refused = await reader.call("selection:set", { rect: null });
    expectError(refused, "FORBIDDEN");
    expect(refused.error?.details).toEqual({ scope: "read", method: "selection:set" });
    expectError(await reader.call("document:export", { path: "never.png" }), "FORBIDDEN");
    expect((await reader.call("document:current")).ok).toBe(true);
    const writer = await make(withToken(harness, "full-t0ken"));
    expect((await writer.call("selection:set", { rect: null })).ok).toBe(true);
  });

  it("invalid params answer BAD_REQUEST listing the issues", async () => {
    const t = await make(await startOnSharedEditor());
    const outcome = await t.call("selection:set", { rect: { x: "left" } });
    expectError(outcome, "BAD_REQUEST");
    expect(outcome.error?.details?.["issues"]).toEqual(expect.arrayContaining([expect.objectContaining({ path: "rect.x" })]));
  });

  it("unknown params are refused rather than silently ignored", async () => {
    const t = await make(await startOnSharedEditor());
    expectError(await t.call("selection:getArea", { documentID: 1 }), "BAD_REQUEST");
  });

  it("an invalid-params message names the first issue's path and message; details.issues keeps them all", async () => {
    const t = await make(await startOnSharedEditor());
    const outcome = await t.call("document:create", { width: "wide", height: -1 });
    expectError(outcome, "BAD_REQUEST");
    const issues = outcome.error?.details?.["issues"] as Array<{ path: string; message: string }>;
    expect(issues.map((issue) => issue.path)).toEqual(expect.arrayContaining(["width", "height"]));
    expect(outcome.error?.message).toBe(`Invalid params for document:create: ${issues[0]!.path}: ${issues[0]!.message} (and ${issues.length - 1} more in details.issues)`);
  });

  it("an issue about the params object as a whole is named without a path", async () => {
    const t = await make(await startOnSharedEditor());
    const outcome = await t.call("selection:getArea", { documentID: 1 });
    const issues = outcome.error?.details?.["issues"] as Array<{ path: string; message: string }>;
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe("");
    expect(outcome.error?.message).toBe(`Invalid params for selection:getArea: ${issues[0]!.message}`);
    expect(outcome.error?.message).toContain("documentID");
  });

  it("a missing layer answers LAYER_NOT_FOUND", async () => {
    const t = await make(await startOnSharedEditor());
    expectError(await t.call("layer:getInfoById", { layerId: 9999 }), "LAYER_NOT_FOUND");
  });

  it("a missing document answers DOCUMENT_NOT_FOUND", async () => {
    const t = await make(await startOnSharedEditor());
    expectError(await t.call("document:layers", { documentId: 999 }), "DOCUMENT_NOT_FOUND");
  });

  it("no open document answers NO_DOCUMENT", async () => {
    const t = await make(await startOnSharedEditor({ embedded: { sample: false } }));
    expectError(await t.call("document:current"), "NO_DOCUMENT");
  });

  it.runIf(name === "http")("an oversized body answers PAYLOAD_TOO_LARGE and the bridge keeps serving", async () => {
    // Over WS the frame limit is the socket's maxPayload, which closes the socket with 1009 (ws.test.ts).
    const t = await make(await startOnSharedEditor({ limits: { maxHttpBodyBytes: 1024, maxImportBodyBytes: 1024 } }));
    expectError(await t.call("layer:importImage", { image: "A".repeat(4096) }), "PAYLOAD_TOO_LARGE");
    expectError(await t.call("selection:set", { rect: null, padding: "B".repeat(4096) }), "PAYLOAD_TOO_LARGE");
    expect((await t.call("selection:getArea")).ok).toBe(true);
  });

  it("an editor that throws unexpectedly answers INTERNAL without leaking the error", async () => {
    const host = new ScriptedHost();
    host.getSelection = async () => {
      throw new Error("secret stack detail");
    };
    const t = await make(await startOnSharedEditor({ host }));
    const outcome = await t.call("selection:getArea");
    expectError(outcome, "INTERNAL");
    expect(JSON.stringify(outcome.error)).not.toContain("secret");
  });
});

describe("errors only one transport can produce", () => {
  it("an unknown WS method answers UNKNOWN_METHOD with requestId and method", async () => {
    const client = await (await startOnSharedEditor()).connect();
    const frame = await client.send("no:such", {}, "abc");
    expect(frame.error).toMatchObject({ code: "UNKNOWN_METHOD", requestId: "abc", method: "no:such", source: "protocol" });
  });

  it("a misspelt method answers UNKNOWN_METHOD suggesting the nearest known name", async () => {
    const client = await (await startOnSharedEditor()).connect();
    const frame = await client.send("document:curent", {});
    expect(frame.error).toMatchObject({
      code: "UNKNOWN_METHOD",
      message: 'Unknown method "document:curent" on /ws; did you mean "document:current"?',
      details: { method: "document:curent", endpoint: "/ws", suggestion: "document:current" },
    });
    const cased = await client.send("Document:Current", {});
    expect(cased.error?.details).toMatchObject({ suggestion: "document:current" });
  });

  it("a name far from every method gets no suggestion", async () => {
    const client = await (await startOnSharedEditor()).connect();
    const frame = await client.send("frobnicate", {});
    expect(frame.error).toMatchObject({ code: "UNKNOWN_METHOD", message: 'Unknown method "frobnicate" on /ws' });
    expect(frame.error?.details).not.toHaveProperty("suggestion");
  });

  it("a plugin's method called on the root endpoint says which endpoint serves it", async () => {
    const harness = await startOnSharedEditor({ plugins: [STATS_PLUGIN], pluginConfig: { stats: { greeting: "hi" } } });
    const root = await harness.connect();
    const frame = await root.send("stats:count", {});
    expect(frame.error).toMatchObject({
      code: "UNKNOWN_METHOD",
      message: 'Method "stats:count" is not served on /ws: the plugin endpoint /ws/stats serves it',
      details: { method: "stats:count", endpoint: "/ws", servedBy: ["/ws/stats"] },
    });
    // Following the hint works.
    const plugin = await harness.connect("/ws/stats");
    expect(await plugin.call("stats:count")).toMatchObject({ count: expect.any(Number) });
  });

  it("an unknown method on a plugin endpoint names that endpoint", async () => {
    const harness = await startOnSharedEditor({ plugins: [STATS_PLUGIN], pluginConfig: { stats: { greeting: "hi" } } });
    const plugin = await harness.connect("/ws/stats");
    const frame = await plugin.send("selection:getAria", {});
    expect(frame.error).toMatchObject({ code: "UNKNOWN_METHOD", details: { endpoint: "/ws/stats", suggestion: "selection:getArea" } });
  });

  it("an unknown HTTP route answers NOT_FOUND as a ProtocolError", async () => {
    const harness = await startOnSharedEditor();
    const response = await harness.http("/no/such/route");
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: "NOT_FOUND" });
  });

  it("a known HTTP route asked with the wrong verb answers 405 METHOD_NOT_ALLOWED with Allow", async () => {
    const harness = await startOnSharedEditor();
    const wrongVerb = await harness.http("/document/export");
    expect(wrongVerb.status).toBe(405);
    expect(wrongVerb.headers.get("allow")).toBe("POST");
    expect((await harness.http("/document/current", { method: "PUT" })).headers.get("allow")).toBe("GET, HEAD");
    const body = (await wrongVerb.json()) as { code: string; message: string; details: unknown };
    expect(ProtocolErrorSchema.safeParse(body).success).toBe(true);
    expect(body).toMatchObject({ code: "METHOD_NOT_ALLOWED", message: "/document/export answers POST, not GET", details: { allow: ["POST"] } });
    expect(ERROR_RULES.METHOD_NOT_ALLOWED).toMatchObject({ status: 405, retryable: false });
  });

  it("event methods over HTTP do not exist; over WS they need a logical client", async () => {
    const harness = await startOnSharedEditor();
    expect((await harness.http("/event/subscribe", { method: "POST" })).status).toBe(404);
  });
});
