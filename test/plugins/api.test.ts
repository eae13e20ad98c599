import { describe, expect, it } from "vitest";
// The module behind the package's `image-editor-bridge/plugin` export, from the sources (never a stale `dist/`).
import { definePlugin, PluginError } from "../../src/plugins/api.js";
import { statusForError, toProtocolError } from "../../src/protocol/index.js";

describe("image-editor-bridge/plugin", () => {
  it("definePlugin returns the definition unchanged, for typing", () => {
    const definition = { id: "x", setup() {} };
    expect(definePlugin(definition)).toBe(definition);
  });

  it("a PluginError crosses the wire with its code, source plugin and HTTP status", () => {
    const wire = toProtocolError(new PluginError("QUOTA_EXCEEDED", "slow down", { status: 429, retryable: true, details: { limit: 3 } }));
    expect(wire).toEqual({
      code: "QUOTA_EXCEEDED",
      message: "slow down",
      retryable: true,
      source: "plugin",
      details: { limit: 3, httpStatus: 429 },
    });
    expect(statusForError(wire)).toBe(429);
  });
});
