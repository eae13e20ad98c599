import type { H3Event } from "h3";
import type { CallsPort, DispatchCaller } from "../../calls/port.js";
import { batchJson } from "../../calls/batch.js";
import { BATCH_METHOD } from "../../protocol/index.js";
import type { Limits } from "../../limits.js";
import { readJsonBody } from "./body.js";
import { errorResponse, HttpResponse, jsonBytesResponse } from "./respond.js";

/** The path of the batch route: `POST /batch` with the batch's params as the JSON body. */
export const BATCH_PATH = "/batch";

/**
 * `POST /batch`: the body is the `batch` params, the answer the bare array of outcomes (200 even when calls in it
 * failed: each entry says). An invalid batch answers its error with the error table's status. The caller is built
 * per request by the app (`callerOf` may throw, e.g. for an unknown `?editor=`).
 */
export async function runBatchRoute(ports: { readonly calls: CallsPort; readonly limits: Limits }, event: H3Event, callerOf: () => DispatchCaller): Promise<Response> {
  try {
    const params = await readJsonBody(event.req, ports.limits.maxHttpBodyBytes, ports.limits);
    const outcomes = await ports.calls.batch(callerOf(), params);
    const body = await batchJson(outcomes, "", "");
    if (typeof body !== "string") return jsonBytesResponse(body);
    return new HttpResponse(body, { headers: { "content-type": "application/json; charset=utf-8" } });
  } catch (error) {
    return errorResponse(ports.calls.toWireError(error, { method: BATCH_METHOD }));
  }
}
