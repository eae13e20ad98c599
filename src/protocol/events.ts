import { z } from "zod";
import { ACCESS_SCOPES, EVERY_EVENT } from "./constants.js";
import { ProtocolErrorSchema } from "./errors.js";
import { HostLayerSchema, HostRectSchema, LayerPreviewPayloadSchema, PluginInfoSchema } from "./resources.js";

/** Main events of deliverable on every endpoint to clients that subscribed. */
export const MAIN_EVENTS = ["#ready", "#closing", "selection:changed", "layer:previewChange", "layer:selectionChange"] as const;
export type MainEventType = (typeof MAIN_EVENTS)[number];

/** State events: when a client's socket is backed up only the latest value per type is kept. */
export const STATE_EVENTS: ReadonlySet<string> = new Set(["selection:changed", "layer:previewChange", "layer:selectionChange"]);

/**
 * Events `"*"` leaves out: a preview (an image at every change of the active layer) costs far more than the other
 * events together, so it comes only to those who name it.
 */
export const PREVIEW_EVENTS: ReadonlySet<string> = new Set(["layer:previewChange"]);

/**
 * The event types a subscription names, `"*"` spelled out: every accepted type except previews, which come only when
 * named beside it. Each type once, in the order named (those of `"*"` in the endpoint's order); types not accepted
 * are returned as they are, for the caller to refuse.
 */
export function spellOutEventTypes(named: readonly string[], accepted: readonly string[]): string[] {
  const out = new Set<string>();
  for (const type of named) {
    if (type !== EVERY_EVENT) out.add(type);
    else for (const each of accepted) if (!PREVIEW_EVENTS.has(each)) out.add(each);
  }
  return [...out];
}

export const ClosingReasonSchema = z.enum(["host-close", "process-exit"]);
export type ClosingReason = z.infer<typeof ClosingReasonSchema>;

export const EVENT_SCHEMAS = {
  "#ready": z.object({ port: z.number().int(), plugins: z.array(PluginInfoSchema) }),
  "#closing": z.object({ reason: ClosingReasonSchema }),
  "selection:changed": HostRectSchema.nullable(),
  "layer:previewChange": LayerPreviewPayloadSchema,
  "layer:selectionChange": z.array(HostLayerSchema).nullable(),
} as const satisfies Record<MainEventType, z.ZodType>;

/** What each main event says and when it is sent, beside its schema: the published contract shows it. */
export const EVENT_DESCRIPTIONS = {
  "#ready": "The bridge is listening, with its port and loaded plugins. Sticky: a late subscriber receives it at once.",
  "#closing": "The bridge is shutting down (`process-exit`) or its editor closed (`host-close`); sockets then close with 1001.",
  "selection:changed": "The active document's selection changed: its bounding rectangle, or `null` when nothing is selected.",
  "layer:previewChange": "The active layer's pixels or identity changed: a fresh preview of it (at most 300 px), or `null` when no layer is active.",
  "layer:selectionChange": "The active layers changed: the layers now active, or `null` when there is no document.",
} as const satisfies Record<MainEventType, string>;

/** What a restart cost one document: `document` (it is gone), `changes` (since its last recovery copy), `selection`. */
export const RestartLossSchema = z.enum(["document", "changes", "selection"]);
export type RestartLoss = z.infer<typeof RestartLossSchema>;

/** One document of a restarted editor: brought back from its recovery copy or not, and what it lost. */
export const RestartedDocumentSchema = z.object({
  documentId: z.number().int(),
  recovered: z.boolean(),
  lost: z.array(RestartLossSchema),
});
export type RestartedDocument = z.infer<typeof RestartedDocumentSchema>;

/**
 * `editor:restarted`: an editor was lost (it crashed, ran out of memory, or was stopped with its thread stuck past
 * a call's deadline) and a fresh one took its place. The documents it could reopen from their recovery copies keep
 * their ids (`recoveredDocumentIds`); the others are gone, and a `closedDocument` event for each came first.
 * `documents` says, per document, what was lost.
 */
export const EditorRestartedEventDataSchema = z.object({
  editorId: z.string(),
  reason: z.string(),
  restarts: z.number().int().positive(),
  lostDocumentIds: z.array(z.number().int()),
  recoveredDocumentIds: z.array(z.number().int()),
  documents: z.array(RestartedDocumentSchema),
});
export type EditorRestartedEventData = z.infer<typeof EditorRestartedEventDataSchema>;

/** The event a logical client gets when the bridge moved it to another editor. */
/**
 * `documentChanged`: a document changed. After every edit of the editing vocabulary every editor sends it with the
 * document, its revision after the edit and the method; editors also send it for changes made otherwise (a script, an
 * import, a person at the editor), with fields of their own (the embedded editor says what changed: `pixels`,
 * `layers`, `selection`, `activeLayers`).
 */
export const DOCUMENT_CHANGED_EVENT = "documentChanged";
export const DocumentChangedEventDataSchema = z.looseObject({
  documentId: z.number().int(),
  /** The document's revision after the change, where the editor counts them. */
  revision: z.number().int().nonnegative().optional(),
  /** The edit method that made the change; absent for other changes. */
  method: z.string().optional(),
});

export const EDITOR_CHANGED_EVENT = "editor:changed";

/**
 * `editor:changed`: the editor a logical client worked with is gone (in a cluster: its bridge died or left), so
 * the client was given another (`to`, chosen as for a new client) on its next call, which runs there. Documents of
 * the old editor are gone with it. Sent whether or not the client subscribed, and replayed to a resuming client.
 */
export const EditorChangedEventDataSchema = z.object({
  from: z.string(),
  to: z.string(),
  reason: z.enum(["bridge-gone"]),
  /** The bridge that held `from`, in a cluster. */
  bridge: z.string().optional(),
});
export type EditorChangedEventData = z.infer<typeof EditorChangedEventDataSchema>;

/** First frame on every accepted socket. */
export const ConnectedEventDataSchema = z.object({
  clientId: z.string(),
  resumed: z.boolean(),
  protocolVersion: z.number().int(),
  server: z.object({ name: z.string(), version: z.string() }),
  endpoint: z.string().optional(),
  replayed: z.number().int().nonnegative().optional(),
  lost: z.number().int().nonnegative().optional(),
  /**
   * What this connection negotiated beyond protocol 1: `"binary"` when it asked for binary images (`?binary=1`).
   * Empty for a connection that asked for nothing; absent from bridges that predate the field.
   */
  features: z.array(z.string()).optional(),
  /**
   * `"read"` on a connection opened with the read token (`--read-token`): calls outside that scope answer
   * `FORBIDDEN`. Absent with full access.
   */
  scope: z.enum(ACCESS_SCOPES).optional(),
});
export type ConnectedEventData = z.infer<typeof ConnectedEventDataSchema>;

/** Out-of-band error event: a frame that could not be parsed, or a connection refused after upgrade. */
export const ErrorEventDataSchema = ProtocolErrorSchema;

/** Names of the connection-level events the server sends without a subscription. */
export const CONNECTION_EVENTS = { connected: "connected", error: "error" } as const;
