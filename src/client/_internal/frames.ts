/** What one text frame from the bridge is: an answer to a request, an event, or some other JSON object. */
export type IncomingFrame =
  | { kind: "answer"; ok: boolean; frame: Record<string, unknown> }
  | { kind: "event"; type: string; data: unknown; seq: number | undefined }
  | { kind: "other" };

/** Reads a text frame; undefined for one that is not a JSON object (the bridge sends only those: it is ignored). */
export function readFrame(text: string): IncomingFrame | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const f = value as Record<string, unknown>;
  if (typeof f["id"] === "string" && typeof f["ok"] === "boolean") return { kind: "answer", ok: f["ok"], frame: f };
  if (typeof f["type"] === "string") return { kind: "event", type: f["type"], data: f["data"], seq: typeof f["seq"] === "number" ? f["seq"] : undefined };
  return { kind: "other" };
}
