import { z } from "zod";
import {
  CutoutMethodSchema,
  EditorSummarySchema,
  DataLossSchema,
  HostDocumentSchema,
  HostLayerSchema,
  HostRectSchema,
  FileFormatSchema,
  ImageFormatSchema,
  ImageResultSchema,
  LayerImportImageParamsSchema,
  LayerPreviewPayloadSchema,
  PointSchema,
  SelectionPathSchema,
  ServerInfoSchema,
  WebhookDeliverySchema,
  WebhookViewSchema,
} from "./resources.js";
import { FILTER_METHOD_SCHEMAS } from "./adjustments.js";
import { EFFECT_METHOD_SCHEMAS } from "./effects.js";
import { COMP_READ_SCHEMAS, EDIT_METHOD_SCHEMAS } from "./edit-methods.js";
import { HISTORY_METHOD_SCHEMAS } from "./history.js";
import { TEXT_METHOD_SCHEMAS } from "./text.js";
import { TEMPLATE_METHOD_SCHEMAS } from "./templates.js";

/*
 * Params and result schemas of every built-in method (the protocol's methods plus the bridge's extras).
 * Params objects are strict where a typo would silently change behaviour; optional `documentId` means the
 * editor's active document at call time.
 */

const documentId = z.number().int().optional();
const layerId = z.number().int();
const layerIndex = z.number().int().nonnegative();
/** Longest edge of a preview or scaled export, in pixels. */
const maxSize = z.number().int().min(1).max(16384);
const quality = z.number().int().min(1).max(100);
const scale = z.number().positive().max(16);

const Empty = z.object({}).strict();
const DocumentScoped = z.object({ documentId }).strict();

/** A file path a client sends; what it may name is decided by the bridge's files roots. */
const filePath = z.string().min(1).max(4096);

/** Longest webhook URL accepted. */
export const WEBHOOK_URL_MAX_CHARS = 2048;
/** Shortest secret a client may choose: a short one would make the signature guessable. */
export const WEBHOOK_SECRET_MIN_CHARS = 16;
const WebhookRef = z.object({ id: z.string().min(1).max(64) }).strict();

const ScriptLanguage = z.enum(["javascript", "extendscript", "script-fu"]);

/** The value a script completed with, as JSON. */
export const ScriptResultSchema = z.object({ result: z.unknown() });

/** `ok` is always true: clients of the Generator bridge service read it from these results. */
export const SubscriptionResultSchema = z.object({ type: z.string(), subscribed: z.boolean(), ok: z.literal(true) });

/** Most event types one `event:subscribe` or `event:unsubscribe` may name in `types`. */
export const SUBSCRIBE_MAX_TYPES = 256;

const eventType = z.string().min(1).max(256);

/**
 * `{type}` (one type, or `"*"`) or `{types: [...]}`, exactly one of the two. `"*"` stands for every event type the
 * endpoint accepts except previews (`layer:previewChange`), which come only when named.
 */
const SubscriptionParamsSchema = z
  .object({ type: eventType.optional(), types: z.array(eventType).min(1).max(SUBSCRIBE_MAX_TYPES).optional() })
  .strict()
  .refine((p) => (p.type === undefined) !== (p.types === undefined), { message: "pass exactly one of type and types", path: ["type"] });

/** The answer to `{types}`: each event type the call named (`"*"` spelled out), and whether it is now subscribed. */
export const SubscriptionsResultSchema = z.object({
  subscriptions: z.array(z.object({ type: z.string(), subscribed: z.boolean() })),
  ok: z.literal(true),
});

/** `{type}` answers as it always has (`{type, subscribed, ok}`); `{types}` answers `{subscriptions, ok}`. */
const SubscribeResultSchema = z.union([SubscriptionResultSchema, SubscriptionsResultSchema]);

/** `server:ping`: the bridge is there and answering; `time` is its clock (ms since the epoch). */
export const PingResultSchema = z.object({ pong: z.literal(true), time: z.number().int() });

/**
 * Keep an alpha channel in PNG, WebP and TIFF even when every pixel of the document is opaque (left out then by
 * default, as image editors do). JPEG never has one.
 */
const alpha = z.boolean().optional();

const ExportOptions = {
  documentId,
  format: ImageFormatSchema.optional(),
  quality: quality.optional(),
  maxSize: maxSize.optional(),
  scale: scale.optional(),
};

const LayerRef = {
  documentId,
  layerId: layerId.optional(),
  layerIndex: layerIndex.optional(),
};
const oneLayerRef = (p: { layerId?: number | undefined; layerIndex?: number | undefined }): boolean =>
  p.layerId === undefined || p.layerIndex === undefined;
const oneLayerRefMessage = { message: "pass at most one of layerId and layerIndex", path: ["layerId"] };

/** Layer reference for previews: a layer id (number), `"current"`, `"id:N"` or `"index:N"`. */
export const LayerSpecSchema = z.union([
  z.number().int(),
  z.literal("current"),
  z.string().regex(/^(id|index):\d+$/, 'expected a layer id, "current", "id:N" or "index:N"'),
]);
export type LayerSpec = z.infer<typeof LayerSpecSchema>;

export const FileExportResultSchema = z.object({
  path: z.string(),
  format: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  size: z.number().int().nonnegative(),
});

export const SaveResultSchema = z.object({
  path: z.string(),
  format: z.string(),
  /** Where the replaced file was kept (`<name>.bak`), when the save replaced one and backups are on. */
  backupPath: z.string().optional(),
  /** What the written file lacks compared with what was opened; only ever non-empty with `allowLossy: true`. */
  dropped: z.array(DataLossSchema).optional(),
});

export const ClientSummarySchema = z.object({
  /** The first characters of the client id: enough to tell clients apart, never enough to resume one. */
  idPrefix: z.string(),
  /** The display name the client gave with `?name=` (absent when it gave none). */
  name: z.string().optional(),
  endpoint: z.string(),
  /** The editor the client's calls go to when they name no document; present when the bridge runs several. */
  editorId: z.string().optional(),
  state: z.enum(["attached", "detached"]),
  subscriptions: z.array(z.string()),
  inFlight: z.number().int().nonnegative(),
  connectedAt: z.number(),
});

/**
 * Fewest characters of a client id `server:disconnectClient` accepts (`server:clients` shows 8): a slip such as a
 * single character cannot close a client it happens to match.
 */
export const MIN_CLIENT_ID_PREFIX_CHARS = 4;

/**
 * `server:disconnectClient`: which client (the start of its id, as `server:clients` shows it, in any case; a full id
 * works too) and whether to dispose it (`evict`) or only close its socket.
 */
export const DisconnectClientParamsSchema = z
  .object({
    clientIdPrefix: z
      .string()
      .min(MIN_CLIENT_ID_PREFIX_CHARS)
      .max(36)
      .regex(/^[0-9A-Fa-f-]+$/, "expected the start of a client id, as server:clients shows it"),
    evict: z.boolean().optional(),
  })
  .strict();

export const DisconnectClientResultSchema = z.object({
  /** The client as it was before: its id prefix, name and state. */
  client: ClientSummarySchema,
  /** Whether a socket was closed (4010, or 4410 for an evicted client); false when the client had none attached. */
  disconnected: z.boolean(),
  /** Whether the logical client was disposed: it cannot be resumed. */
  evicted: z.boolean(),
});

/** Every built-in method's params and result schema, keyed by method name. */
export const METHOD_SCHEMAS = {
  getServerInfo: { params: Empty, result: ServerInfoSchema },
  "jsx:run": {
    params: z
      .object({
        script: z.string().min(1),
        language: ScriptLanguage.optional(),
        timeoutMs: z.number().int().positive().optional(),
      })
      .strict(),
    result: ScriptResultSchema,
  },
  "jsx:execute": {
    params: z
      .object({
        name: z.string().min(1).max(255),
        params: z.record(z.string(), z.unknown()).optional(),
        timeoutMs: z.number().int().positive().optional(),
      })
      .strict(),
    result: ScriptResultSchema,
  },
  "event:subscribe": { params: SubscriptionParamsSchema, result: SubscribeResultSchema },
  "event:unsubscribe": { params: SubscriptionParamsSchema, result: SubscribeResultSchema },
  "action:autoCutout": { params: z.object({ documentId, layerId: layerId.optional(), method: CutoutMethodSchema.optional() }).strict(), result: z.boolean() },
  "action:removeBackground": {
    params: z.object({ documentId, layerId: layerId.optional(), method: CutoutMethodSchema.optional() }).strict(),
    result: z.object({
      success: z.boolean(),
      /** The way that ran (editors that say). */
      method: CutoutMethodSchema.exclude(["auto"]).optional(),
      /** Share of the layer found to be subject (editors that say). */
      coverage: z.number().min(0).max(1).optional(),
      /** Why no subject was found, when `success` is false (editors that say). */
      details: z.object({ reason: z.string() }).optional(),
    }),
  },
  "layer:getInfo": {
    params: z
      .object({ ...LayerRef, getChildren: z.boolean().optional() })
      .strict()
      .refine(oneLayerRef, oneLayerRefMessage),
    result: HostLayerSchema.nullable(),
  },
  "layer:getInfoById": {
    params: z.object({ documentId, layerId, getChildren: z.boolean().optional() }).strict(),
    result: HostLayerSchema,
  },
  "layer:getInfoByIndex": {
    params: z.object({ documentId, layerIndex, getChildren: z.boolean().optional() }).strict(),
    result: HostLayerSchema,
  },
  "layer:getInfoBySelectionIndex": {
    params: z.object({ documentId, selectionIndex: z.number().int().nonnegative(), getChildren: z.boolean().optional() }).strict(),
    result: HostLayerSchema,
  },
  "layer:getCurrentPreview": {
    params: z.object({ documentId, maxSize: maxSize.optional() }).strict(),
    result: LayerPreviewPayloadSchema,
  },
  "layer:importImage": { params: LayerImportImageParamsSchema, result: HostLayerSchema },
  "document:current": { params: Empty, result: HostDocumentSchema },
  "document:export": {
    params: z
      .object({
        documentId,
        path: filePath,
        format: FileFormatSchema.optional(),
        quality: quality.optional(),
        alpha,
        /** Replace a file an open document was read from (refused otherwise: `WOULD_LOSE_DATA`). */
        overwrite: z.boolean().optional(),
      })
      .strict(),
    result: FileExportResultSchema,
  },
  "document:save": {
    params: z
      .object({
        documentId,
        savePath: filePath.optional(),
        /** Save even though the file would lack data the document was opened with (else `WOULD_LOSE_DATA`). */
        allowLossy: z.boolean().optional(),
        /** Keep the replaced file as `<name>.bak`; defaults to the bridge's setting (on). */
        backupOnOverwrite: z.boolean().optional(),
      })
      .strict(),
    result: SaveResultSchema,
  },
  "image:exportLayer": {
    params: z.object({ ...ExportOptions, layerId: layerId.optional(), layerIndex: layerIndex.optional() })
      .strict()
      .refine(oneLayerRef, oneLayerRefMessage),
    result: ImageResultSchema,
  },
  "image:exportLayerWithSelectedPath": {
    params: z
      .object({
        ...ExportOptions,
        layerId: layerId.optional(),
        layerIndex: layerIndex.optional(),
        strokeColor: z.string().max(64).optional(),
        strokeWidth: z.number().positive().max(64).optional(),
        /** Grow the selection by this many pixels before outlining it. @default 0 */
        expand: z.number().int().min(0).max(1000).optional(),
      })
      .strict()
      .refine(oneLayerRef, oneLayerRefMessage),
    result: ImageResultSchema,
  },
  "image:getPreview": {
    params: z.object({ documentId, layerSpec: LayerSpecSchema, maxSize: maxSize.optional() }).strict(),
    result: ImageResultSchema,
  },
  "image:exportDocument": { params: z.object({ ...ExportOptions, alpha }).strict(), result: ImageResultSchema },
  "selection:getArea": { params: DocumentScoped, result: HostRectSchema.nullable() },
  "selection:getPath": {
    params: z.object({ documentId, expand: z.number().int().min(0).max(1000).optional() }).strict(),
    result: SelectionPathSchema.nullable(),
  },
  "selection:change": {
    params: z.object({ enabled: z.boolean().optional() }).strict(),
    result: z.object({ watching: z.boolean(), ok: z.literal(true) }),
  },
  // The bridge's extras.
  "document:list": { params: Empty, result: z.array(HostDocumentSchema) },
  "document:open": { params: z.object({ path: filePath }).strict(), result: HostDocumentSchema },
  "document:create": {
    params: z
      .object({
        width: z.number().int().min(1).max(30000),
        height: z.number().int().min(1).max(30000),
        name: z.string().min(1).max(255).optional(),
        background: z.string().max(64).optional(),
      })
      .strict(),
    result: HostDocumentSchema,
  },
  "document:close": { params: DocumentScoped, result: z.object({ closed: z.boolean(), documentId: z.number().int() }) },
  "document:layers": { params: DocumentScoped, result: z.array(HostLayerSchema) },
  "layer:select": {
    params: z.object({ documentId, ids: z.array(layerId).max(10000) }).strict(),
    result: z.array(HostLayerSchema),
  },
  "selection:set": {
    // Exactly one shape: `rect` (null clears), `ellipse` (inscribed in a rect) or `polygon` (even-odd fill).
    params: z
      .object({
        documentId,
        rect: HostRectSchema.nullable().optional(),
        ellipse: HostRectSchema.optional(),
        polygon: z.array(PointSchema).min(3).max(10_000).optional(),
      })
      .strict()
      .refine((p) => [p.rect, p.ellipse, p.polygon].filter((v) => v !== undefined).length === 1, {
        message: "pass exactly one of rect, ellipse and polygon",
        path: ["rect"],
      }),
    result: HostRectSchema.nullable(),
  },
  "server:ping": { params: Empty, result: PingResultSchema },
  "server:clients": { params: Empty, result: z.object({ clients: z.array(ClientSummarySchema), editors: z.array(EditorSummarySchema).optional() }) },
  "server:disconnectClient": { params: DisconnectClientParamsSchema, result: DisconnectClientResultSchema },
  "webhook:add": {
    params: z
      .object({
        /** Where deliveries are POSTed: an absolute http: or https: URL without credentials. */
        url: z.string().min(1).max(WEBHOOK_URL_MAX_CHARS),
        types: z.array(z.string().min(1).max(128)).min(1).max(64),
        /** Signs every delivery; one is made up when absent. Answered once, in this result. */
        secret: z.string().min(WEBHOOK_SECRET_MIN_CHARS).max(256).optional(),
        documentId,
      })
      .strict(),
    result: WebhookViewSchema.extend({ secret: z.string() }),
  },
  "webhook:list": { params: Empty, result: z.object({ webhooks: z.array(WebhookViewSchema) }) },
  "webhook:remove": { params: WebhookRef, result: z.object({ id: z.string(), removed: z.boolean() }) },
  "webhook:enable": { params: WebhookRef, result: WebhookViewSchema },
  "webhook:deliveries": { params: WebhookRef, result: z.object({ webhook: WebhookViewSchema, deliveries: z.array(WebhookDeliverySchema) }) },
  ...EDIT_METHOD_SCHEMAS,
  ...COMP_READ_SCHEMAS,
  ...FILTER_METHOD_SCHEMAS,
  ...EFFECT_METHOD_SCHEMAS,
  ...HISTORY_METHOD_SCHEMAS,
  ...TEXT_METHOD_SCHEMAS,
  ...TEMPLATE_METHOD_SCHEMAS,
} as const;

export type BuiltinMethodName = keyof typeof METHOD_SCHEMAS;
export type MethodParams<M extends BuiltinMethodName> = z.infer<(typeof METHOD_SCHEMAS)[M]["params"]>;
export type MethodResult<M extends BuiltinMethodName> = z.infer<(typeof METHOD_SCHEMAS)[M]["result"]>;

/**
 * Whether a name is a built-in method.
 * @deprecated The bridge no longer uses it; it stays exported for users of `image-editor-bridge/protocol`.
 */
export function isBuiltinMethod(name: string): name is BuiltinMethodName {
  return Object.hasOwn(METHOD_SCHEMAS, name);
}
