import { BridgeError } from "../../protocol/index.js";

/**
 * Reads a JSON object body, refusing more than `limit` bytes before buffering them (a declared
 * Content-Length is checked first, a chunked body is counted as it streams). An empty body is `{}`.
 */
export async function readJsonBody(request: Request, limit: number): Promise<Record<string, unknown>> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  const tooLarge = (): BridgeError =>
    new BridgeError("PAYLOAD_TOO_LARGE", `Request body is larger than ${limit} bytes`, { details: { limit } });
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  if (request.body === null) return {};
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  if (size === 0) return {};
  const text = Buffer.concat(chunks, size).toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BridgeError("BAD_REQUEST", "Request body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new BridgeError("BAD_REQUEST", "Request body must be a JSON object (the method's params)");
  }
  return value as Record<string, unknown>;
}
