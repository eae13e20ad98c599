import { BridgeError } from "../../protocol/index.js";

/**
 * Reads a JSON object body, refusing more than `limit` bytes before buffering them (a declared
 * Content-Length is checked first, a chunked body is counted as it streams). An empty body is `{}`.
 */
export async function readJsonBody(request: Request, limit: number): Promise<Record<string, unknown>> {
  const text = await readBodyText(request, limit);
  if (text === undefined) return {};
  const value = parseJson(text);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new BridgeError("BAD_REQUEST", "Request body must be a JSON object (the method's params)");
  }
  return value as Record<string, unknown>;
}

/**
 * Reads a body for a plugin route with the same limit: JSON when the content type says so (or none is given),
 * else the text as is; undefined when there is no body.
 */
export async function readRouteBody(request: Request, limit: number): Promise<unknown> {
  const text = await readBodyText(request, limit);
  if (text === undefined) return undefined;
  const type = request.headers.get("content-type");
  return type === null || /[/+]json\b/i.test(type) ? parseJson(text) : text;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new BridgeError("BAD_REQUEST", "Request body is not valid JSON");
  }
}

/** The body as UTF-8 text, refusing more than `limit` bytes before buffering them; undefined when empty. */
async function readBodyText(request: Request, limit: number): Promise<string | undefined> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  const tooLarge = (): BridgeError =>
    new BridgeError("PAYLOAD_TOO_LARGE", `Request body is larger than ${limit} bytes`, { details: { limit } });
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  if (request.body === null) return undefined;
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
  return size === 0 ? undefined : Buffer.concat(chunks, size).toString("utf8");
}
