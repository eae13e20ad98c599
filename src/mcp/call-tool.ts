import type { McpBackend, McpCallOptions, McpMethodInfo } from "./backend.js";
import { toImageContent } from "./image-content.js";

type Content = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string };

/** A `tools/call` answer. */
export interface ToolResult {
  [key: string]: unknown;
  content: Content[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Structured content must be an object: a result that is not one (an array, `null`) goes under `result`. */
function structured(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value ?? null };
}

/**
 * Runs one tool's method and answers as MCP wants it: JSON as text plus structured content; an image as image
 * content (bounded by `maxImageBytes`) plus its size and bounds; a failure as `isError` with `CODE: message` and
 * the bridge's error as structured content, so the model can read and correct it.
 */
export async function callTool(backend: McpBackend, method: McpMethodInfo, args: unknown, options: McpCallOptions & { readonly maxImageBytes: number }): Promise<ToolResult> {
  try {
    const answer = await backend.call(method, args ?? {}, options);
    if (answer.kind === "json") {
      return { content: [{ type: "text", text: JSON.stringify(answer.value ?? null) }], structuredContent: structured(answer.value) };
    }
    const { format, width, height, bounds, bytes } = answer.image;
    const image = await toImageContent(answer.image, options.maxImageBytes);
    const content: Content[] = image.content === null ? [] : [image.content];
    if (image.note !== undefined) content.push({ type: "text", text: image.note });
    return { content, structuredContent: { format, width, height, bounds, byteLength: bytes.byteLength } };
  } catch (error) {
    const wire = backend.toWireError(error, method.name);
    return { content: [{ type: "text", text: `${wire.code}: ${wire.message}` }], structuredContent: { error: wire }, isError: true };
  }
}
