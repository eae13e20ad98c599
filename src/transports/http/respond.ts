import { STATUS_CODES } from "node:http";
import { FastResponse } from "srvx/node";
import { statusForError, type ProtocolError } from "../../protocol/index.js";
import type { HttpAnswer } from "../../calls/port.js";

/** srvx's response with the reason phrase on its status line (`401 Unauthorized`), which srvx would leave empty. */
class ReasonedResponse extends FastResponse {
  constructor(body?: ConstructorParameters<typeof FastResponse>[0], init?: ResponseInit) {
    super(body, init?.statusText === undefined ? { ...init, statusText: STATUS_CODES[init?.status ?? 200] ?? "" } : init);
  }
}

/**
 * srvx's Node response writes a string or buffer body straight to the socket; a standard `Response` would send
 * it through web streams, which halved JSON throughput in `bench/http.js`.
 */
export const HttpResponse: typeof Response = ReasonedResponse as unknown as typeof Response;

/** On every 401: the scheme and realm a client answers with (RFC 9110 asks a 401 to carry a challenge). */
const UNAUTHORIZED_HEADERS = { "www-authenticate": 'Bearer realm="image-editor-bridge"' } as const;

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" } as const;

/** A JSON body already serialized (a large image result built in slices). */
export function jsonBytesResponse(body: Buffer): Response {
  return new HttpResponse(body as Buffer<ArrayBuffer>, { status: 200, headers: JSON_HEADERS });
}

/** A bare JSON result (no envelope, strings included). */
export function jsonResponse(value: unknown, status = 200): Response {
  return new HttpResponse(JSON.stringify(value === undefined ? null : value), { status, headers: JSON_HEADERS });
}

/** A bare ProtocolError with the status of the one error table, and any extra headers (`Allow` on a 405). */
export function errorResponse(error: ProtocolError, headers: Record<string, string> = {}): Response {
  const status = statusForError(error);
  return new HttpResponse(JSON.stringify(error), { status, headers: { ...JSON_HEADERS, ...(status === 401 ? UNAUTHORIZED_HEADERS : {}), ...headers } });
}

/** A method call's answer as the calls gave it (JSON, an image's bytes, or 204). */
export function answerResponse(answer: HttpAnswer): Response {
  return new HttpResponse(answer.body as ConstructorParameters<typeof Response>[0], { status: answer.status, headers: answer.headers });
}
