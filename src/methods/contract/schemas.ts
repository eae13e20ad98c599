import { z } from "zod";
import {
  BatchEntrySchema,
  ClientSummarySchema,
  EditorSummarySchema,
  HealthSchema,
  HostBoundsSchema,
  HostDocumentSchema,
  HostLayerSchema,
  HostRectSchema,
  ImageResultSchema,
  LayerPreviewPayloadSchema,
  PluginHealthSchema,
  PluginInfoSchema,
  ProtocolErrorSchema,
  ReadinessSchema,
  RequestIdSchema,
  SelectionPathSchema,
  ServerInfoSchema,
} from "../../protocol/index.js";

/** A JSON Schema object, as the published documents carry it. */
export type JsonSchema = Record<string, unknown>;

/** Where shared schemas live in both documents (OpenAPI 3.1 and AsyncAPI 3.0 agree on the path). */
export const COMPONENT_SCHEMAS = "#/components/schemas/";

/**
 * Schemas published once under their own name and referenced everywhere they occur: the resources a reader meets
 * in many results, and `HostLayer`, which contains itself and could not be inlined.
 */
const NAMED: ReadonlyArray<readonly [string, z.ZodType]> = [
  ["ProtocolError", ProtocolErrorSchema],
  ["RequestId", RequestIdSchema],
  ["HostRect", HostRectSchema],
  ["HostBounds", HostBoundsSchema],
  ["HostDocument", HostDocumentSchema],
  ["HostLayer", HostLayerSchema],
  ["ImageResult", ImageResultSchema],
  ["LayerPreviewPayload", LayerPreviewPayloadSchema],
  ["SelectionPath", SelectionPathSchema],
  ["ServerInfo", ServerInfoSchema],
  ["EditorSummary", EditorSummarySchema],
  ["ClientSummary", ClientSummarySchema],
  ["PluginInfo", PluginInfoSchema],
  ["PluginHealth", PluginHealthSchema],
  ["Health", HealthSchema],
  ["Readiness", ReadinessSchema],
  ["BatchEntry", BatchEntrySchema],
];

const registry = z.registry<{ id: string }>();
for (const [id, schema] of NAMED) registry.add(schema, { id });

/** `"draft-2020-12"` for OpenAPI 3.1, `"draft-07"` for AsyncAPI 3.0's default schema format. */
export type SchemaDialect = "draft-2020-12" | "draft-07";

/**
 * Turns zod schemas into JSON Schema for one document: named schemas (and any other a schema needs to refer to
 * itself) are collected once as components, and every reference points at them there.
 */
export class SchemaBank {
  readonly components: Record<string, JsonSchema> = {};
  private readonly unnamedByText = new Map<string, string>();

  constructor(private readonly dialect: SchemaDialect) {}

  /** JSON Schema of `schema` as a value is sent (`input`, params) or answered (`output`, results and events). */
  of(schema: z.ZodType, io: "input" | "output"): JsonSchema {
    const json = z.toJSONSchema(schema, { unrepresentable: "any", io, target: this.dialect, metadata: registry }) as JsonSchema;
    const { $schema: _dialect, $defs, definitions, ...rest } = json;
    const defs = ($defs ?? definitions ?? {}) as Record<string, JsonSchema>;
    // Names zod made up for unnamed self-references are only unique within one call: keep them apart by content.
    const renamed = new Map<string, string>();
    for (const [name, def] of Object.entries(defs)) {
      renamed.set(name, NAMED.some(([id]) => id === name) ? name : this.unnamed(def));
    }
    const fix = (value: unknown): unknown => rewriteRefs(value, renamed);
    for (const [name, def] of Object.entries(defs)) {
      const key = renamed.get(name)!;
      // Params see a named schema as sent and results as answered; the two agree for every named schema.
      this.components[key] ??= fix(def) as JsonSchema;
    }
    return fix(rest) as JsonSchema;
  }

  /** A reference to a component of this bank, adding it when it is not there yet. */
  ref(name: string): JsonSchema {
    const named = NAMED.find(([id]) => id === name);
    if (named !== undefined && this.components[name] === undefined) this.of(named[1], "output");
    return { $ref: `${COMPONENT_SCHEMAS}${name}` };
  }

  private unnamed(def: JsonSchema): string {
    const text = JSON.stringify(def);
    let name = this.unnamedByText.get(text);
    if (name === undefined) {
      name = `Shared${this.unnamedByText.size + 1}`;
      this.unnamedByText.set(text, name);
    }
    return name;
  }
}

/** Points `#/$defs/X` and `#/definitions/X` references at the components, under their published names. */
function rewriteRefs(value: unknown, renamed: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, renamed));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === "$ref" && typeof item === "string") {
      const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(item);
      out[key] = match === null ? item : `${COMPONENT_SCHEMAS}${renamed.get(match[1]!) ?? match[1]}`;
    } else {
      out[key] = rewriteRefs(item, renamed);
    }
  }
  return out;
}
