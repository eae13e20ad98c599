import { BridgeError } from "../protocol/index.js";

/** The MCP SDK, an optional dependency: a client-only install (`npm install --omit=optional`) leaves it out. */
export const MCP_SDK_PACKAGE = "@modelcontextprotocol/sdk";

export interface McpSdk {
  readonly server: typeof import("@modelcontextprotocol/sdk/server/index.js");
  readonly http: typeof import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js");
  readonly stdio: typeof import("@modelcontextprotocol/sdk/server/stdio.js");
  readonly types: typeof import("@modelcontextprotocol/sdk/types.js");
}

let loading: Promise<McpSdk> | undefined;

/**
 * Loads the SDK on first use only, so the bridge starts (and serves everything else) without it. Rejects with
 * NOT_SUPPORTED naming the package when this install has none.
 */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
    import("@modelcontextprotocol/sdk/server/stdio.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]).then(
    ([server, http, stdio, types]) => ({ server, http, stdio, types }),
    (error: unknown) => {
      loading = undefined;
      throw sdkLoadError(error);
    },
  );
  return loading;
}

/** What a failed import of the SDK becomes: NOT_SUPPORTED naming the package when it is missing, else as it was. */
export function sdkLoadError(error: unknown): unknown {
  if ((error as { code?: unknown }).code !== "ERR_MODULE_NOT_FOUND") return error;
  return new BridgeError(
    "NOT_SUPPORTED",
    `MCP needs the optional package ${MCP_SDK_PACKAGE}, which this install left out; add it with npm install --include=optional in the project that installed the bridge`,
    { details: { package: MCP_SDK_PACKAGE } },
  );
}
