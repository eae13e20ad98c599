import type { z } from "zod";
import type { FileFormat, HostBounds, ProtocolError, ServerInfo } from "../protocol/index.js";

/** What the MCP server knows of one method: enough to derive its tool. */
export interface McpMethodInfo {
  readonly name: string;
  /** The plugin that serves it on its own endpoint; undefined for built-ins. */
  readonly pluginId?: string | undefined;
  readonly description?: string | undefined;
  readonly params: z.ZodType<unknown>;
  readonly result: z.ZodType<unknown>;
  readonly mutates: boolean;
  readonly host: boolean;
}

/** An image a call answered, whichever way it came (the bridge's own result, or the client SDK's). */
export interface McpImage {
  readonly bytes: Uint8Array;
  readonly format: FileFormat;
  readonly width: number;
  readonly height: number;
  readonly bounds: HostBounds;
}

/** One progress report of a running call (`progress` is a fraction of 1 when `total` is absent). */
export interface McpProgress {
  readonly progress: number;
  readonly total?: number | undefined;
  readonly message?: string | undefined;
}

export interface McpCallOptions {
  /** Aborts the call on the bridge: a queued call never runs, a running one is told to stop. */
  readonly signal?: AbortSignal | undefined;
  /** Receives the editor's progress reports; given only when the MCP client asked for progress. */
  readonly onProgress?: ((progress: McpProgress) => void) | undefined;
}

/** A call's answer: plain JSON, or an image with its bytes. */
export type McpCallResult = { readonly kind: "json"; readonly value: unknown } | { readonly kind: "image"; readonly image: McpImage };

/**
 * The bridge as the MCP server sees it. Two implementations: in-process (the bridge's own dispatcher and event
 * streams, `in-process.ts`) and remote (a client SDK connection to a running bridge, `remote.ts`), so one server
 * serves `/mcp` on the bridge's port and `image-editor-bridge mcp` over stdio alike.
 */
export interface McpBackend {
  /** The methods tools are derived from, in table order. */
  methods(): readonly McpMethodInfo[];
  /** Runs one method; rejects with a `BridgeError` (or anything carrying a wire `code`) when it fails. */
  call(method: McpMethodInfo, params: unknown, options?: McpCallOptions): Promise<McpCallResult>;
  /** Listens to a main event (`selection:changed`, `layer:previewChange`, …); returns the function that stops. */
  on(type: string, listener: (data: unknown) => void): () => void;
  serverInfo(): Promise<ServerInfo>;
  /** A failed call's error as it crosses the wire (logged once where the bridge logs its failures). */
  toWireError(error: unknown, method: string): ProtocolError;
  /** Releases what the backend holds (subscriptions, a connection it opened). */
  close(): Promise<void>;
}
