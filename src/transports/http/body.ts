import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { Limits } from "../../limits.js";
import { BridgeError } from "../../protocol/index.js";
import { inboundBudgetOfSocket, inboundOwner, type InboundBudget, type InboundTicket } from "../inbound.js";
import { NotJson, parseJsonOffThread } from "../json-off-thread.js";

/** Where a body's JSON is parsed: from `jsonOffThreadBytes` on, on the JSON worker, nested at most `maxJsonDepth`. */
export type JsonLimits = Pick<Limits, "jsonOffThreadBytes" | "maxJsonDepth">;

/**
 * Reads a JSON object body, refusing more than `limit` bytes before buffering them (a declared
 * Content-Length is checked first, a chunked body is counted as it streams). An empty body is `{}`. A large body
 * is parsed off the bridge's thread.
 */
export async function readJsonBody(request: Request, limit: number, json: JsonLimits): Promise<Record<string, unknown>> {
  return readBody(request, limit, async (text) => {
    if (text === undefined) return {};
    const value = await parseJson(text, json);
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new BridgeError("BAD_REQUEST", "Request body must be a JSON object (the method's params)");
    }
    return value as Record<string, unknown>;
  });
}

/**
 * Reads a body for a plugin route with the same limit: JSON when the content type says so (or none is given),
 * else the text as is; undefined when there is no body.
 */
export async function readRouteBody(request: Request, limit: number, json: JsonLimits): Promise<unknown> {
  return readBody(request, limit, async (text) => {
    if (text === undefined) return undefined;
    const type = request.headers.get("content-type");
    return type === null || /[/+]json\b/i.test(type) ? parseJson(text, json) : text;
  });
}

async function parseJson(text: string, json: JsonLimits): Promise<unknown> {
  const notJson = (): BridgeError => new BridgeError("BAD_REQUEST", "Request body is not valid JSON");
  if (text.length >= json.jsonOffThreadBytes) {
    return parseJsonOffThread(text, json.maxJsonDepth).catch((error: unknown) => {
      throw error instanceof NotJson ? notJson() : error;
    });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw notJson();
  }
}

/** Where a request's body bytes are counted: the inbound budget of the server that accepted its socket. */
interface BodyInbound {
  readonly budget: InboundBudget;
  readonly owner: string;
  readonly socket: Socket;
}

function inboundOf(request: Request): BodyInbound | undefined {
  // On Node, h3's request carries the IncomingMessage it was made from.
  const socket = (request as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req?.socket;
  const budget = socket === undefined ? undefined : inboundBudgetOfSocket(socket);
  return budget === undefined || socket === undefined ? undefined : { budget, owner: inboundOwner(socket), socket };
}

/**
 * Waits until `bytes` fit the inbound budget; meanwhile the body is not read, so TCP holds the rest of it at the
 * client. Rejects if the socket closes first (the client gave up, or `httpRequestTimeoutMs` ran out).
 */
function reserveBody(inbound: BodyInbound, bytes: number): Promise<InboundTicket> {
  return new Promise((resolve, reject) => {
    const gone = (): BridgeError => new BridgeError("BAD_REQUEST", "The connection closed while its body waited for inbound room");
    if (inbound.socket.destroyed) return reject(gone());
    const onClose = (): void => {
      inbound.budget.release(ticket);
      reject(gone());
    };
    const ticket = inbound.budget.reserve(inbound.owner, bytes, () => {
      inbound.socket.off("close", onClose);
      resolve(ticket);
    });
    if (ticket.granted) resolve(ticket);
    else inbound.socket.once("close", onClose);
  });
}

/**
 * The body as UTF-8 text (undefined when empty) handed to `use`, refusing more than `limit` bytes before buffering
 * them. Its bytes count against the inbound budget (`inboundBytesInFlight`) until `use` has parsed them: a body
 * of `inboundSmallBytes` or more reserves its declared length before it is read (without one, the most it may still
 * grow to, once it gets there), and waits while that does not fit.
 */
async function readBody<T>(request: Request, limit: number, use: (text: string | undefined) => Promise<T>): Promise<T> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  const tooLarge = (): BridgeError =>
    new BridgeError("PAYLOAD_TOO_LARGE", `Request body is larger than ${limit} bytes`, { details: { limit } });
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  const inbound = inboundOf(request);
  let ticket: InboundTicket | undefined;
  let small = 0;
  try {
    if (inbound !== undefined && Number.isFinite(declared) && declared >= inbound.budget.smallBytes) ticket = await reserveBody(inbound, declared);
    if (request.body === null) return await use(undefined);
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
      if (inbound === undefined || ticket !== undefined) continue;
      inbound.budget.charge(value.byteLength);
      small += value.byteLength;
      if (size >= inbound.budget.smallBytes && size < limit) ticket = await reserveBody(inbound, limit - size);
    }
    const text = size === 0 ? undefined : Buffer.concat(chunks, size).toString("utf8");
    chunks.length = 0;
    // Awaited here, so the body's bytes stay counted until it is parsed.
    return await use(text);
  } finally {
    inbound?.budget.discharge(small);
    if (ticket !== undefined) inbound?.budget.release(ticket);
  }
}
