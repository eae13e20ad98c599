import { WebSocket } from "ws";
import { Connection, isBridgeImage } from "../client/index.js";
import { BUILTIN_METHODS } from "../methods/index.js";
import { toProtocolError, type ProtocolError, type ServerInfo } from "../protocol/index.js";
import type { McpBackend, McpCallResult, McpMethodInfo } from "./backend.js";

export interface RemoteBackendOptions {
  /** The bridge's address (`http://127.0.0.1:7700`). */
  readonly url: string;
  readonly token?: string | undefined;
  /** The display name of the connection in `server:clients`. @default "mcp" */
  readonly name?: string;
}

/**
 * A running bridge, reached with the client SDK over WebSocket, as an MCP backend: `image-editor-bridge mcp --url`.
 * Tools are the built-in methods of this package's version (a bridge of another version answers UNKNOWN_METHOD for
 * the ones it lacks); the connection reconnects and resumes on its own.
 */
export async function remoteBackend(options: RemoteBackendOptions): Promise<McpBackend> {
  const connection = new Connection({ url: options.url, WebSocket: WebSocket as never, name: options.name ?? "mcp", ...(options.token ? { token: options.token } : {}) });
  try {
    await connection.ready();
  } catch (error) {
    await connection.close().catch(() => {});
    throw error;
  }
  const methods: McpMethodInfo[] = [...BUILTIN_METHODS];
  const invoke = connection.invoke.bind(connection) as (method: string, params: unknown, options: object) => Promise<unknown>;
  return {
    methods: () => methods,
    async call(method, params, callOptions = {}): Promise<McpCallResult> {
      const result = await invoke(method.name, params, {
        ...(callOptions.signal ? { signal: callOptions.signal } : {}),
        ...(callOptions.onProgress ? { onProgress: callOptions.onProgress } : {}),
      });
      if (!isBridgeImage(result)) return { kind: "json", value: result };
      const { bytes, format, width, height, bounds } = result;
      return { kind: "image", image: { bytes, format, width, height, bounds } };
    },
    on(type, listener) {
      return (connection.on as (type: string, listener: (data: unknown) => void) => () => void)(type, listener);
    },
    serverInfo: () => connection.getServerInfo() as Promise<ServerInfo>,
    // The client SDK's errors carry the wire fields already; anything else is the connection's own failure.
    toWireError: (error, method): ProtocolError => {
      const known = error as { code?: unknown; message?: unknown; details?: Record<string, unknown>; retryable?: boolean };
      if (typeof known.code === "string" && typeof known.message === "string") {
        return { code: known.code, message: known.message, method, ...(known.details ? { details: known.details } : {}), ...(known.retryable ? { retryable: true } : {}) };
      }
      return toProtocolError(error, { method });
    },
    close: () => connection.close(),
  };
}
