import { statusForError, type ProtocolError } from "../../protocol/index.js";

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" } as const;

/** A bare JSON result (DESIGN §2 "HTTP": no envelope, strings included). */
export function jsonResponse(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value === undefined ? null : value), { status, headers: JSON_HEADERS });
}

/** A bare ProtocolError with the status of the one error table. */
export function errorResponse(error: ProtocolError): Response {
  return jsonResponse(error, statusForError(error));
}
