import type { H3Event } from "h3";
import type { DispatchCaller } from "../../calls/dispatcher.js";
import { batchJson } from "../../calls/batch.js";
import { BATCH_METHOD } from "../../protocol/index.js";
import type { TransportTarget } from "../target.js";
import { readJsonBody } from "./body.js";
import { errorResponse, HttpResponse, jsonBytesResponse } from "./respond.js";

/** The path of the batch route: `POST /batch` with the batch's params as the JSON body. */
export const BATCH_PATH = "/batch";

/**
 * `POST /batch`: the body is the `batch` params, the answer the bare array of outcomes (200 even when calls in it
 * failed: each entry says). An invalid batch answers its error with the error table's status. The caller is built
 * per request by the app (`callerOf` may throw, e.g. for an unknown `?editor=`).
 */
export async function runBatchRoute(target: TransportTarget, event: H3Event, callerOf: () => DispatchCaller): Promise<Response> {
  try {
    const params = await readJsonBody(event.req, target.limits.maxHttpBodyBytes, target.limits);
    const outcomes = await target.dispatcher.batch(callerOf(), params);
    const body = await batchJson(outcomes, "", "");
    if (typeof body !== "string") return jsonBytesResponse(body);
    return new HttpResponse(body, { headers: { "content-type": "application/json; charset=utf-8" } });
  } catch (error) {
    return errorResponse(target.dispatcher.toWireError(error, { method: BATCH_METHOD }));
  }
}
