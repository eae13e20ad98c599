import { z } from "zod";
import { EVENT_SCHEMAS, PROTOCOL_VERSION } from "../protocol/index.js";
import type { MethodDefinition } from "./define.js";

export interface PublishedSchema {
  protocolVersion: number;
  methods: Record<string, { params: unknown; result: unknown; http?: { verb: string; path: string } }>;
  events: Record<string, unknown>;
}

const toJson = (schema: z.ZodType): unknown => z.toJSONSchema(schema, { unrepresentable: "any", io: "input" });

/**
 * JSON Schema of every method's params and result and of every main event, derived from the same method table
 * that drives dispatch and routes, so what is published cannot drift from what is served (`GET /schema`).
 */
export function publishSchema(methods: Iterable<MethodDefinition>): PublishedSchema {
  const out: PublishedSchema = { protocolVersion: PROTOCOL_VERSION, methods: {}, events: {} };
  for (const method of methods) {
    const entry: PublishedSchema["methods"][string] = { params: toJson(method.params), result: toJson(method.result) };
    if (method.http !== undefined) {
      // OpenAPI-style path parameters: `/layer/by-id/{layerId}`.
      entry.http = { verb: method.http.verb, path: method.http.path.replace(/:(\w+)/g, "{$1}") };
    }
    out.methods[method.name] = entry;
  }
  for (const [type, schema] of Object.entries(EVENT_SCHEMAS)) out.events[type] = toJson(schema);
  return out;
}
