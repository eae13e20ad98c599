import { describe, expect, it } from "vitest";
import { startBridge } from "../helpers/bridge.js";

/** The formats JSON Schema 2020-12 defines; a strict validator (Ajv's default) refuses any other. */
const JSON_SCHEMA_FORMATS = new Set([
  "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6",
  "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template", "json-pointer", "relative-json-pointer", "regex",
  // The data type formats OpenAPI and AsyncAPI add
  "int32", "int64", "float", "double", "byte", "binary", "password",
]);

/** Keys whose values are data (a method's params), not schemas: their `format` is an image format. */
const DATA_KEYS = new Set(["example", "examples", "x-example-params", "default", "const", "enum"]);

/** Every `format` keyword in a JSON document's schemas, with where it is. */
function formats(value: unknown, at = "#"): Array<{ at: string; format: unknown }> {
  if (Array.isArray(value)) return value.flatMap((item, i) => formats(item, `${at}/${i}`));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).filter(([key]) => !DATA_KEYS.has(key)).flatMap(([key, item]) => [
    ...(key === "format" && typeof item === "string" ? [{ at, format: item }] : []),
    ...formats(item, `${at}/${key}`),
  ]);
}

describe("the published schemas", () => {
  it("use only formats JSON Schema defines (a data URI is a pattern, not zod's starts_with)", async () => {
    const harness = await startBridge();
    for (const path of ["/schema", "/openapi.json", "/asyncapi.json"]) {
      const document = await (await harness.http(path)).json();
      expect(formats(document).filter(({ format }) => !JSON_SCHEMA_FORMATS.has(format as string)), path).toEqual([]);
    }
    const schema = (await (await harness.http("/schema")).json()) as { methods: Record<string, { result: { properties: { data: { anyOf: Array<Record<string, unknown>> } } } }> };
    expect(schema.methods["image:exportDocument"]!.result.properties.data.anyOf[0]).toEqual({ type: "string", pattern: "^data:image\\/" });
  });
});
