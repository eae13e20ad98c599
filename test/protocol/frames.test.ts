import { describe, expect, it } from "vitest";
import {
  BridgeError,
  isBridgeError,
  isEvent,
  isRequest,
  isResponse,
  parseFrame,
  serializeFrame,
  statusForError,
  toProtocolError,
} from "../../src/protocol/index.js";

describe("frame helpers", () => {
  it("parseFrame reads requests, responses and events from text and bytes", () => {
    expect(parseFrame('{"id":"1","method":"getServerInfo"}')).toEqual({ id: "1", method: "getServerInfo" });
    expect(parseFrame(new TextEncoder().encode('{"id":"1","ok":true,"result":2}'))).toEqual({ id: "1", ok: true, result: 2 });
    expect(parseFrame('{"type":"#ready","data":{"port":1,"plugins":[]}}')).toMatchObject({ type: "#ready" });
  });

  it("parseFrame rejects non-JSON and non-frames with BAD_REQUEST, keeping the id when readable", () => {
    expect(() => parseFrame("{")).toThrow(expect.objectContaining({ code: "BAD_REQUEST" }));
    try {
      parseFrame('{"id":"7","ok":"yes"}');
      expect.unreachable();
    } catch (error) {
      expect(isBridgeError(error) && error.details).toEqual({ id: "7" });
    }
  });

  it("the type guards tell frames apart", () => {
    const request = { id: "1", method: "m", params: {} };
    const success = { id: "1", ok: true, result: null };
    const failure = { id: "1", ok: false, error: { code: "X", message: "m" } };
    const event = { type: "selection:changed", data: null, seq: 3 };
    expect([isRequest(request), isResponse(request), isEvent(request)]).toEqual([true, false, false]);
    expect([isRequest(success), isResponse(success), isEvent(success)]).toEqual([false, true, false]);
    expect(isResponse(failure)).toBe(true);
    expect(isResponse({ id: "1", ok: false, error: { code: 1 } })).toBe(false);
    expect([isRequest(event), isResponse(event), isEvent(event)]).toEqual([false, false, true]);
    expect(serializeFrame(event)).toBe('{"type":"selection:changed","data":null,"seq":3}');
  });
});

describe("errors on the wire", () => {
  it("toProtocolError fills retryable and source from the table and never leaks unknown errors", () => {
    expect(toProtocolError(new BridgeError("HOST_BUSY", "busy"), { requestId: "r", method: "m" })).toEqual({
      code: "HOST_BUSY",
      message: "busy",
      retryable: true,
      source: "bridge",
      requestId: "r",
      method: "m",
    });
    const hidden = toProtocolError(new TypeError("at /secret/path.js:1"));
    expect(hidden).toEqual({ code: "INTERNAL", message: "Internal error", retryable: false, source: "bridge" });
  });

  it("plugin codes pass through with source plugin and a 500 unless they name a status", () => {
    const error = toProtocolError(new BridgeError("MY_CODE", "x", { pluginId: "p" }));
    expect(error).toMatchObject({ code: "MY_CODE", source: "plugin", pluginId: "p" });
    expect(statusForError(error)).toBe(500);
    expect(statusForError({ code: "MY_CODE", message: "x", details: { httpStatus: 409 } })).toBe(409);
    expect(statusForError({ code: "NO_DOCUMENT", message: "x" })).toBe(409);
  });
});
