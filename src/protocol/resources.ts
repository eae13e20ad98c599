import { z } from "zod";
import { MAX_BINARY_PART_INDEX } from "./binary-frames.js";
import { ProtocolErrorSchema } from "./errors.js";

/** A rectangle in document pixels. */
export const HostRectSchema = z.object({
  x: z.number(),
  y: z.number(),
  width: z.number().nonnegative(),
  height: z.number().nonnegative(),
});
export type HostRect = z.infer<typeof HostRectSchema>;

/** A point in document pixels. */
export const PointSchema = z.object({ x: z.number(), y: z.number() });

/** Edges in document pixels; `right`/`bottom` are exclusive. */
export const HostBoundsSchema = z.object({
  left: z.number(),
  top: z.number(),
  right: z.number(),
  bottom: z.number(),
});
export type HostBounds = z.infer<typeof HostBoundsSchema>;

export const HostDocumentSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  resolution: z.number().positive(),
  /** The document's colour mode as its editor names it (`RGB`, `Grayscale`, `CMYK`…; a file's own mode when converted). */
  colorMode: z.string(),
  /**
   * How the editor converted the file's pixels when it opened it, in words (`16-bit → 8-bit`,
   * `CMYK → RGB (profile-less)`, `duotone → grayscale`); absent when it did not. Saving writes the file back in its
   * own mode where it can.
   */
  conversion: z.string().optional(),
  isDirty: z.boolean(),
  /**
   * Raised by every edit (each method of the editing vocabulary, selection edits included) and by every other change
   * of the document's layers or pixels made through the bridge (a script, an import); an edit passing `ifRevision`
   * is refused with `CONFLICT` when the document moved on.
   */
  revision: z.number().int().nonnegative(),
  filePath: z.string().optional(),
  activeLayerIds: z.array(z.number().int()),
  /** The editor the document lives on (`<kind>-<n>`); documents of a bridge with several editors differ here. */
  editorId: z.string().optional(),
});
export type HostDocument = z.infer<typeof HostDocumentSchema>;

/**
 * Layer kinds. The list may grow (`fill` came later than the others): clients should treat a kind they do not know as an
 * opaque layer rather than fail.
 */
export const LAYER_KINDS = ["pixel", "group", "text", "shape", "adjustment", "smartObject", "background", "fill"] as const;
export const LayerKindSchema = z.enum(LAYER_KINDS);
export type LayerKind = z.infer<typeof LayerKindSchema>;

export interface HostLayer {
  id: number;
  index: number;
  name: string;
  kind: LayerKind;
  visible: boolean;
  opacity: number;
  blendMode: string;
  bounds: HostBounds;
  rect: HostRect;
  clipped: boolean;
  /** Whether the layer is locked against edits; absent where the editor does not say. */
  locked?: boolean | undefined;
  /** The opacity of the layer's own pixels, not of its effects (0–100); absent where the editor does not say. */
  fillOpacity?: number | undefined;
  /** The layer's pixel mask, when it has one (and the editor reports masks). */
  mask?: LayerMask | undefined;
  /** A text layer's text and type settings, where the editor reads them (`kind` `text`). */
  text?: LayerText | undefined;
  /** An adjustment layer's settings, as `layer:create {kind: "adjustment"}` takes them (where the editor reads them). */
  adjustment?: { type: string; [setting: string]: unknown } | undefined;
  /** A fill layer's settings, as `layer:create {kind: "fill"}` takes them (a pattern's as `{type: "pattern", name}`). */
  fill?: { type: string; [setting: string]: unknown } | undefined;
  /**
   * The layer's effects that are on, as `layer:setEffects` takes them (where the editor reads them); absent when it
   * has none. An effect using the global light reads back the light's angle.
   */
  effects?: { [effect: string]: unknown } | undefined;
  children?: HostLayer[] | undefined;
}

/** A layer's pixel mask: whether it applies, moves with the layer, how strongly (0–100) and how soft (pixels). */
export interface LayerMask {
  enabled: boolean;
  linked: boolean;
  density: number;
  feather: number;
}
export const LayerMaskSchema = z.object({
  enabled: z.boolean(),
  linked: z.boolean(),
  density: z.number().min(0).max(100),
  feather: z.number().nonnegative(),
});

/** How the lines of a text layer line up: against the point (`position`) or within the box. */
export const TEXT_ALIGNMENTS = ["left", "center", "right", "justify"] as const;
/**
 * The way text runs. `ltr` and `rtl` are horizontal; `ttb` and `btt` are vertical, which no editor of the bridge
 * sets yet (`NOT_SUPPORTED`). Left out: from the text's script.
 */
export const TEXT_DIRECTIONS = ["ltr", "rtl", "ttb", "btt"] as const;
/**
 * Photoshop's anti-aliasing methods for text: `none` (hard edges), `sharp`, `crisp` (higher contrast), `strong`
 * (heavier) and `smooth`. Calls may also pass `true` (`smooth`) or `false` (`none`).
 */
export const TEXT_ANTI_ALIAS = ["none", "sharp", "crisp", "strong", "smooth"] as const;

/**
 * A text layer's text and type settings, as the editor reads them back. Sizes are points (1/72 inch, turned into
 * pixels with the document's resolution); `position` is where the first line's baseline starts (its left end for
 * left alignment, its middle for centre, its right end for right), `box` the paragraph box the lines wrap in;
 * exactly one of them. `tracking` is in thousandths of an em; `leading` absent is automatic (the font's own line
 * height); `baselineShift` (points, up) is absent when 0. `fallbackFonts` names the fonts that drew characters `font`
 * lacks.
 */
export const LayerTextSchema = z.object({
  text: z.string(),
  /** The font the editor uses, by its PostScript name where the editor knows it. */
  font: z.string(),
  size: z.number().positive(),
  /** `#rrggbb`, or `#rrggbbaa` when not opaque. */
  color: z.string(),
  position: PointSchema.optional(),
  box: HostRectSchema.optional(),
  alignment: z.enum(TEXT_ALIGNMENTS),
  leading: z.number().positive().optional(),
  tracking: z.number(),
  baselineShift: z.number().optional(),
  antiAlias: z.enum(TEXT_ANTI_ALIAS),
  direction: z.enum(TEXT_DIRECTIONS).optional(),
  /** ISO 15924 script tag (`Arab`, `Deva`), when one was set. */
  script: z.string().optional(),
  /** BCP 47 language tag (`ar`, `hi`), when one was set. */
  language: z.string().optional(),
  fallbackFonts: z.array(z.string()).optional(),
});
export type LayerText = z.infer<typeof LayerTextSchema>;

/**
 * A layer. `index` is the host's layer index space (each host documents its own);
 * `layer:getInfoByIndex(l.index).id === l.id` holds on every host. `opacity` is 0–100.
 */
/** The fields of a layer object, for the layer schema and for results that add to it. */
const hostLayerFields = () => ({
  id: z.number().int(),
  index: z.number().int(),
  name: z.string(),
  kind: LayerKindSchema.describe("What the layer is. New kinds may be added (fill was): treat one you do not know as an opaque layer."),
  visible: z.boolean(),
  opacity: z.number().min(0).max(100),
  blendMode: z.string(),
  bounds: HostBoundsSchema,
  rect: HostRectSchema,
  clipped: z.boolean(),
  locked: z.boolean().optional(),
  fillOpacity: z.number().min(0).max(100).optional(),
  mask: LayerMaskSchema.optional(),
  text: LayerTextSchema.optional(),
  adjustment: z.object({ type: z.string() }).catchall(z.unknown()).optional(),
  fill: z.object({ type: z.string() }).catchall(z.unknown()).optional(),
  effects: z.record(z.string(), z.unknown()).optional(),
  children: z.array(HostLayerSchema).optional(),
});

export const HostLayerSchema: z.ZodType<HostLayer> = z.lazy(() => z.object(hostLayerFields()));

/** One layer after an edit, with its document's id and the document's revision after the edit. */
export const EditedLayerSchema = z.object({
  ...hostLayerFields(),
  documentId: z.number().int(),
  revision: z.number().int().nonnegative(),
});

export const IMAGE_FORMATS = ["png", "jpeg", "webp"] as const;
export const ImageFormatSchema = z.enum(IMAGE_FORMATS);
export type ImageFormat = z.infer<typeof ImageFormatSchema>;
/** Formats `document:export` writes to a file: the image formats plus TIFF, which is a file format only. */
export const FileFormatSchema = z.enum([...IMAGE_FORMATS, "tiff"]);
export type FileFormat = z.infer<typeof FileFormatSchema>;

/**
 * On a connection that negotiated `binary`: an image's bytes follow the JSON response as binary part `binary`
 * (its header names the request); `mime` is their media type and `bytes` their length.
 */
export const BinaryImageReferenceSchema = z.object({
  binary: z.int().min(0).max(MAX_BINARY_PART_INDEX),
  mime: z.string(),
  bytes: z.int().nonnegative(),
});
export type BinaryImageReference = z.infer<typeof BinaryImageReferenceSchema>;

/** A request param whose bytes follow the JSON request as binary part `binary` (a `binary` connection only). */
export const BinaryPartSchema = z.object({ binary: z.int().min(0).max(MAX_BINARY_PART_INDEX) });

/**
 * A data URI starting with `prefix`, as a pattern: zod's `startsWith` also publishes `format: "starts_with"`, a
 * format JSON Schema does not define, which strict validators (Ajv) refuse.
 */
const DataUriSchema = (prefix: string): z.ZodString => z.string().regex(new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}`));

/** An encoded image returned inline: `data` is a data URI, or a reference to a binary part on a `binary` connection. */
export const ImageResultSchema = z.object({
  data: z.union([DataUriSchema("data:image/"), BinaryImageReferenceSchema]),
  format: ImageFormatSchema,
  width: z.number().int().nonnegative(),
  height: z.number().int().nonnegative(),
  bounds: HostBoundsSchema,
});
export type ImageResult = z.infer<typeof ImageResultSchema>;

/** Preview of a layer (`layer:previewChange`): a PNG data URI, longest edge ≤ 300 px by default. */
export const LayerPreviewPayloadSchema = z
  .object({
    documentId: z.number().int(),
    id: z.number().int(),
    name: z.string(),
    index: z.number().int(),
    width: z.number().int().nonnegative(),
    height: z.number().int().nonnegative(),
    data: DataUriSchema("data:image/png"),
  })
  .nullable();
export type LayerPreviewPayload = z.infer<typeof LayerPreviewPayloadSchema>;

export const SizeSchema = z.object({ width: z.number().int().positive(), height: z.number().int().positive() });

/** Params of `layer:importImage`: at most one of `layerId` / `layerIndex` (insert above it). */
export const LayerImportImageParamsSchema = z
  .object({
    image: z.union([z.string().min(1), BinaryPartSchema]),
    documentId: z.number().int().optional(),
    name: z.string().max(255).optional(),
    position: PointSchema.optional(),
    size: SizeSchema.optional(),
    layerId: z.number().int().optional(),
    layerIndex: z.number().int().nonnegative().optional(),
  })
  .refine((p) => p.layerId === undefined || p.layerIndex === undefined, {
    message: "pass at most one of layerId and layerIndex",
    path: ["layerId"],
  });
export type LayerImportImageParams = z.infer<typeof LayerImportImageParamsSchema>;

/** The outline of the selection as an SVG path in document pixels. */
export const SelectionPathSchema = z.object({
  svg: z.string(),
  x: z.number(),
  y: z.number(),
  width: z.number().nonnegative(),
  height: z.number().nonnegative(),
});
export type SelectionPath = z.infer<typeof SelectionPathSchema>;

export const PluginInfoSchema = z.object({ id: z.string() });
export type PluginInfo = z.infer<typeof PluginInfoSchema>;

/** One editor of the bridge, as `getServerInfo`, `GET /status` and `server:clients` show it. */
export const EditorSummarySchema = z.object({
  id: z.string(),
  kind: z.string(),
  state: z.enum(["disconnected", "connecting", "backoff", "ready", "busy", "closing", "closed"]),
  hostVersion: z.string().optional(),
  queued: z.number().int().nonnegative(),
  running: z.number().int().nonnegative(),
  /** Times the editor was lost and started again (its documents were lost each time). */
  restarts: z.number().int().nonnegative(),
  documents: z.number().int().nonnegative(),
  clients: z.number().int().nonnegative(),
  /**
   * The edits this editor makes, by method, each with the fields it cannot honour (a call passing one answers
   * `NOT_SUPPORTED` naming it) and, for `layer:adjust` and `filter:apply`, the adjustment or filter types it cannot
   * make (`unsupportedTypes`); a method not listed answers `NOT_SUPPORTED`.
   */
  edits: z.record(z.string(), z.object({ unsupported: z.array(z.string()).optional(), unsupportedTypes: z.array(z.string()).optional() })).optional(),
  /** Whether the editor keeps a history the bridge can move (`history:*`, atomic batches); absent from older bridges. */
  history: z.boolean().optional(),
});
export type EditorSummary = z.infer<typeof EditorSummarySchema>;

/** `GET /health`: liveness, a small fixed body cheap to poll hard. */
export const HealthSchema = z.object({
  status: z.literal("ok"),
  name: z.string(),
  version: z.string(),
  uptimeMs: z.number().int().nonnegative(),
});
export type Health = z.infer<typeof HealthSchema>;

/** What `GET /ready` concludes: `ok` takes work fully, `degraded` takes work with something missing, `down` takes none. */
export const ReadinessStatusSchema = z.enum(["ok", "degraded", "down"]);
export type ReadinessStatus = z.infer<typeof ReadinessStatusSchema>;

/** One reason `GET /ready` is not `ok`: the part at fault and a sentence. Never a path, id or secret. */
export const ReadinessReasonSchema = z.object({
  component: z.enum(["bridge", "editors", "plugins", "webhooks", "cluster"]),
  status: z.enum(["degraded", "down"]),
  message: z.string(),
});
export type ReadinessReason = z.infer<typeof ReadinessReasonSchema>;

/** `GET /ready`: readiness for a load balancer (200 for `ok` and `degraded`, 503 for `down`). */
export const ReadinessSchema = z.object({
  status: ReadinessStatusSchema,
  reasons: z.array(ReadinessReasonSchema),
  editors: z.object({ total: z.number().int().nonnegative(), ready: z.number().int().nonnegative() }),
  plugins: z.object({ loaded: z.number().int().nonnegative(), failed: z.number().int().nonnegative() }),
});
export type Readiness = z.infer<typeof ReadinessSchema>;

/** One time bucket of `GET /status` `calls`: the calls that finished in it, how many failed, and latency percentiles in ms. */
export const RecentCallsBucketSchema = z.object({
  /** Epoch ms of the bucket's start. */
  at: z.number().int(),
  count: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
  p50: z.number().nonnegative(),
  p95: z.number().nonnegative(),
  p99: z.number().nonnegative(),
});
export type RecentCallsBucket = z.infer<typeof RecentCallsBucketSchema>;

/** `GET /status` `calls`: every call of the last `windowMs` in `bucketMs` buckets, oldest first, the current one last. */
export const RecentCallsSchema = z.object({
  windowMs: z.number().int().positive(),
  bucketMs: z.number().int().positive(),
  buckets: z.array(RecentCallsBucketSchema),
});
export type RecentCalls = z.infer<typeof RecentCallsSchema>;

/** A bridge's view of its cluster, in `getServerInfo` (`/status` `cluster` has more for the operator). */
export const ClusterInfoSchema = z.object({
  name: z.string(),
  /** This bridge's name in the cluster. */
  bridge: z.string(),
  /** The other bridges' editors taking calls: a client may ask for one (`?editor=`). */
  editors: z.array(z.object({ id: z.string(), kind: z.string(), bridge: z.string() })),
  /** Bridges that went away without leaving (lately), with the editors that went with them. */
  lost: z.array(z.object({ bridge: z.string(), editors: z.array(z.string()) })),
});
export type ClusterInfo = z.infer<typeof ClusterInfoSchema>;

export const ServerInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  hostVersion: z.string().optional(),
  /** The same value as `hostVersion`, under the name clients of the Generator bridge service read. */
  psVersion: z.string().optional(),
  plugins: z.array(PluginInfoSchema).optional(),
  protocolVersion: z.number().int().optional(),
  editor: z.string().optional(),
  /** Every editor of the bridge (one unless it runs a pool). */
  editors: z.array(EditorSummarySchema).optional(),
  /**
   * Folders every client path must lie inside (`--files-root`), so clients can build valid paths; `null` when file
   * access is not confined.
   */
  filesRoots: z.array(z.string()).nullable().optional(),
  /** Present when the bridge is one of a cluster of bridges. */
  cluster: ClusterInfoSchema.optional(),
});
export type ServerInfo = z.infer<typeof ServerInfoSchema>;

export const PluginStatusSchema = z.enum(["loaded", "failed"]);
export type PluginStatus = z.infer<typeof PluginStatusSchema>;
export const PluginHealthCheckSchema = z.enum(["ok", "failed", "skipped"]);
export type PluginHealthCheck = z.infer<typeof PluginHealthCheckSchema>;

export const PluginHealthSchema = z.object({
  id: z.string(),
  status: PluginStatusSchema,
  clients: z.number().int().nonnegative(),
  loadedAt: z.number().optional(),
  lastError: ProtocolErrorSchema.optional(),
  checks: z.record(z.string(), PluginHealthCheckSchema).optional(),
  /** Restarts of an isolated plugin after its worker crashed (exit, out of memory, missed liveness ping). */
  restarts: z.number().int().nonnegative().optional(),
  /** Why and when its worker last crashed. */
  lastCrash: z.object({ reason: z.string(), at: z.number() }).optional(),
});
export type PluginHealth = z.infer<typeof PluginHealthSchema>;

/**
 * Named kinds of data a save can drop, reported in `WOULD_LOSE_DATA`'s `details.wouldLose`. Layer features:
 * `textLayers`, `smartObjects`, `fillLayers` (solid, gradient, pattern and shape fills), `adjustmentLayers`,
 * `layerEffects`, `vectorMasks`, `extraMasks` (a second pixel mask beside a vector mask), `disabledMasks`,
 * `groupMasks`, `clipping`, `knockout`, `artboards`, `fillOpacity`. Document features: `iccProfile`,
 * `colorMode` (e.g. grayscale written as RGB), `bitDepth` (16/32-bit written as 8-bit), `psbFormat` (a large
 * document written as PSD), `alphaChannels`, `paths`, `guides`, `layerComps`, `metadata` (XMP, EXIF, IPTC). Exports: `sourceFile` (the export would replace the
 * file an open document was read from). `unknown`: the source could not be inspected, so a save may drop anything.
 * Editors may report other kinds; clients should show unknown ones as they are.
 */
export const DATA_LOSS_KINDS = [
  "textLayers",
  "smartObjects",
  "fillLayers",
  "adjustmentLayers",
  "layerEffects",
  "vectorMasks",
  "extraMasks",
  "disabledMasks",
  "groupMasks",
  "clipping",
  "knockout",
  "artboards",
  "fillOpacity",
  "iccProfile",
  "colorMode",
  "bitDepth",
  "psbFormat",
  "alphaChannels",
  "paths",
  "guides",
  "layerComps",
  "metadata",
  "sourceFile",
  "unknown",
] as const;
export type DataLossKind = (typeof DATA_LOSS_KINDS)[number];

/** One kind of data a save would drop: how many, which layers (for layer features), and a short note. */
export const DataLossSchema = z.object({
  kind: z.string(),
  count: z.number().int().nonnegative(),
  layerIds: z.array(z.number().int()).optional(),
  detail: z.string().optional(),
});
export type DataLoss = z.infer<typeof DataLossSchema>;

/** A webhook as `webhook:list`, `/status` and the delivery log show it: never its secret. */
export const WebhookViewSchema = z.object({
  id: z.string(),
  url: z.string(),
  types: z.array(z.string()),
  /** Only events about this document (events naming no document still go). */
  documentId: z.number().int().optional(),
  enabled: z.boolean(),
  /** Why it was disabled: a run of failed attempts. */
  disabledReason: z.string().optional(),
  /** Whether it is kept in the webhooks file and comes back after a restart. */
  persistent: z.boolean(),
  /** Deliveries waiting, the one being sent included. */
  queued: z.number().int().nonnegative(),
  delivered: z.number().int().nonnegative(),
  failedAttempts: z.number().int().nonnegative(),
  /** Deliveries dropped unsent because the queue was full (oldest first). */
  dropped: z.number().int().nonnegative(),
  consecutiveFailures: z.number().int().nonnegative(),
});
export type WebhookView = z.infer<typeof WebhookViewSchema>;

/** One attempt of one delivery, as the delivery log keeps it. */
export const WebhookDeliverySchema = z.object({
  /** The same on every attempt of one delivery, so a receiver can drop repeats. */
  deliveryId: z.string(),
  type: z.string(),
  attempt: z.number().int().positive(),
  /** The HTTP status the receiver answered, or null when it did not (timeout, refused, DNS). */
  status: z.number().int().nullable(),
  ok: z.boolean(),
  durationMs: z.number().int().nonnegative(),
  error: z.string().optional(),
  /** The start of the receiver's answer body (at most `webhookResponseBodyBytes`), when it sent one. */
  responseBody: z.string().optional(),
  /** True when the answer body went on past what is kept: the rest was not read and the connection was closed. */
  responseBodyCut: z.boolean().optional(),
  at: z.string(),
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

/**
 * How a cutout finds the subject: `auto` (the editor's best), `model` (a segmentation model), `grabcut` (flood fill
 * from the border refined by GrabCut), `flood` (flood fill alone). Editors offer what they have (`NOT_SUPPORTED`
 * names a method an editor lacks).
 */
export const CUTOUT_METHODS = ["auto", "model", "grabcut", "flood"] as const;
export const CutoutMethodSchema = z.enum(CUTOUT_METHODS);
export type CutoutMethod = z.infer<typeof CutoutMethodSchema>;
