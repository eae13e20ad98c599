import { EDIT_FEATURE, HISTORY_FEATURE } from "../protocol/control-names.js";
import { z } from "zod";
import {
  BATCH_FEATURE,
  BATCH_METHOD,
  BatchParamsSchema,
  BatchResultSchema,
  BINARY_FEATURE,
  CANCEL_FEATURE,
  CANCEL_METHOD,
  EVENT_SCHEMAS,
  PROGRESS_EVENT,
  PROGRESS_FEATURE,
  ProgressEventDataSchema,
  PROTOCOL_VERSION,
  RequestCancelParamsSchema,
  RequestCancelResultSchema,
} from "../protocol/index.js";
import type { MethodDefinition } from "./define.js";

export interface PublishedSchema {
  protocolVersion: number;
  /** What protocol 1.1 adds, as the `connected` handshake names it (`binary` only where a connection asks). */
  features: string[];
  /**
   * Each method's params and result, its HTTP route, whether it changes anything (`mutates`: what the dashboard's
   * "try it" offers only when false) and what it does.
   */
  methods: Record<string, { params: unknown; result: unknown; http?: { verb: string; path: string }; mutates?: boolean; description?: string }>;
  events: Record<string, unknown>;
}

const toJson = (schema: z.ZodType): unknown => z.toJSONSchema(schema, { unrepresentable: "any", io: "input" });

/**
 * JSON Schema of every method's params and result and of every main event, derived from the same method table
 * that drives dispatch and routes, so what is published cannot drift from what is served (`GET /schema`).
 */
export function publishSchema(methods: Iterable<MethodDefinition>): PublishedSchema {
  const out: PublishedSchema = {
    protocolVersion: PROTOCOL_VERSION,
    features: [BINARY_FEATURE, CANCEL_FEATURE, PROGRESS_FEATURE, BATCH_FEATURE, EDIT_FEATURE, HISTORY_FEATURE],
    methods: {},
    events: {},
  };
  for (const method of methods) {
    const entry: PublishedSchema["methods"][string] = { params: toJson(method.params), result: toJson(method.result), mutates: method.mutates };
    if (method.description !== undefined) entry.description = method.description;
    if (method.http !== undefined) {
      // OpenAPI-style path parameters: `/layer/by-id/{layerId}`.
      entry.http = { verb: method.http.verb, path: method.http.path.replace(/:(\w+)/g, "{$1}") };
    }
    out.methods[method.name] = entry;
  }
  // Served by the dispatcher itself rather than the method table: they act on other requests.
  out.methods[CANCEL_METHOD] = { params: toJson(RequestCancelParamsSchema), result: toJson(RequestCancelResultSchema) };
  out.methods[BATCH_METHOD] = { params: toJson(BatchParamsSchema), result: toJson(BatchResultSchema), http: { verb: "POST", path: "/batch" } };
  for (const [type, schema] of Object.entries(EVENT_SCHEMAS)) out.events[type] = toJson(schema);
  out.events[PROGRESS_EVENT] = toJson(ProgressEventDataSchema);
  return out;
}
