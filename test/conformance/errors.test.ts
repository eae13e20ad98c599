import { describe, expect, it } from "vitest";
import { ERROR_RULES, ProtocolErrorSchema, type ErrorCode } from "../../src/protocol/index.js";
import { startBridge } from "../helpers/bridge.js";
import { ScriptedHost } from "../helpers/scripted-host.js";
import { TRANSPORTS, type Outcome } from "./_transports.js";

/** Asserts the error is a well-formed ProtocolError with its code, and the table's HTTP status over HTTP. */
function expectError(outcome: Outcome, code: ErrorCode): void {
  expect(outcome.ok).toBe(false);
  expect(ProtocolErrorSchema.safeParse(outcome.error).success).toBe(true);
  expect(outcome.error?.code).toBe(code);
  expect(outcome.error?.message.length).toBeGreaterThan(0);
  expect(outcome.error?.retryable).toBe(ERROR_RULES[code].retryable);
  if (outcome.status !== undefined) expect(outcome.status).toBe(ERROR_RULES[code].status);
}

describe.each(TRANSPORTS)("errors over $name", ({ name, make }) => {
  it("invalid params answer BAD_REQUEST listing the issues", async () => {
    const t = await make(await startBridge());
    const outcome = await t.call("selection:set", { rect: { x: "left" } });
    expectError(outcome, "BAD_REQUEST");
    expect(outcome.error?.details?.["issues"]).toEqual(expect.arrayContaining([expect.objectContaining({ path: "rect.x" })]));
  });

  it("unknown params are refused rather than silently ignored", async () => {
    const t = await make(await startBridge());
    expectError(await t.call("selection:getArea", { documentID: 1 }), "BAD_REQUEST");
  });

  it("a missing layer answers LAYER_NOT_FOUND", async () => {
    const t = await make(await startBridge());
    expectError(await t.call("layer:getInfoById", { layerId: 9999 }), "LAYER_NOT_FOUND");
  });

  it("a missing document answers DOCUMENT_NOT_FOUND", async () => {
    const t = await make(await startBridge());
    expectError(await t.call("document:layers", { documentId: 999 }), "DOCUMENT_NOT_FOUND");
  });

  it("no open document answers NO_DOCUMENT", async () => {
    const t = await make(await startBridge({ embedded: { sample: false } }));
    expectError(await t.call("document:current"), "NO_DOCUMENT");
  });

  it.runIf(name === "http")("an oversized body answers PAYLOAD_TOO_LARGE and the bridge keeps serving", async () => {
    // Over WS the frame limit is the socket's maxPayload, which closes the socket with 1009 (ws.test.ts).
    const t = await make(await startBridge({ limits: { maxHttpBodyBytes: 1024, maxImportBodyBytes: 1024 } }));
    expectError(await t.call("layer:importImage", { image: "A".repeat(4096) }), "PAYLOAD_TOO_LARGE");
    expectError(await t.call("selection:set", { rect: null, padding: "B".repeat(4096) }), "PAYLOAD_TOO_LARGE");
    expect((await t.call("selection:getArea")).ok).toBe(true);
  });

  it("an editor that throws unexpectedly answers INTERNAL without leaking the error", async () => {
    const host = new ScriptedHost();
    host.getSelection = async () => {
      throw new Error("secret stack detail");
    };
    const t = await make(await startBridge({ host }));
    const outcome = await t.call("selection:getArea");
    expectError(outcome, "INTERNAL");
    expect(JSON.stringify(outcome.error)).not.toContain("secret");
  });
});

describe("errors only one transport can produce", () => {
  it("an unknown WS method answers UNKNOWN_METHOD with requestId and method", async () => {
    const client = await (await startBridge()).connect();
    const frame = await client.send("no:such", {}, "abc");
    expect(frame.error).toMatchObject({ code: "UNKNOWN_METHOD", requestId: "abc", method: "no:such", source: "protocol" });
  });

  it("an unknown HTTP route answers NOT_FOUND as a ProtocolError", async () => {
    const harness = await startBridge();
    const response = await harness.http("/no/such/route");
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: "NOT_FOUND" });
    const wrongVerb = await harness.http("/document/export");
    expect(wrongVerb.status).toBe(404);
    expect(((await wrongVerb.json()) as { message: string }).message).toContain("POST");
  });

  it("event methods over HTTP do not exist; over WS they need a logical client", async () => {
    const harness = await startBridge();
    expect((await harness.http("/event/subscribe", { method: "POST" })).status).toBe(404);
  });
});
