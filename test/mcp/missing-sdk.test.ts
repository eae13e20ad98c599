import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/logger.js";
import { createMcpHttp, MCP_SDK_PACKAGE, sdkLoadError } from "../../src/mcp/index.js";
import { toProtocolError } from "../../src/protocol/index.js";

/** What Node throws when an optional dependency was left out of the install. */
const notInstalled = (): Error =>
  Object.assign(new Error(`Cannot find package '${MCP_SDK_PACKAGE}' imported from /app/dist/mcp/sdk.js`), { code: "ERR_MODULE_NOT_FOUND" });

describe("MCP without its optional SDK", () => {
  it("an initialize on /mcp is refused with NOT_SUPPORTED naming the package", async () => {
    const http = createMcpHttp({
      backend: () => {
        throw new Error("no session may start");
      },
      allowScripts: false,
      maxSessions: 4,
      maxSessionsPerAddress: 4,
      sessionIdleMs: 60_000,
      maxImageBytes: 1024,
      log: silentLogger(),
      loadSdk: () => Promise.reject(sdkLoadError(notInstalled())),
    });
    const request = new Request("http://127.0.0.1/mcp", { method: "POST" });
    const refusal = await http.handle(request, { jsonrpc: "2.0", id: 1, method: "initialize", params: {} }).catch((error: unknown) => error);
    const wire = toProtocolError(refusal, {});
    expect(wire).toMatchObject({ code: "NOT_SUPPORTED", details: { package: MCP_SDK_PACKAGE } });
    expect(wire.message).toContain(MCP_SDK_PACKAGE);
  });

  it("any other failure to load the SDK stays what it was", () => {
    const broken = new SyntaxError("Unexpected token");
    expect(sdkLoadError(broken)).toBe(broken);
  });
});
