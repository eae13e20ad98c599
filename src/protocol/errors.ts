import { z } from "zod";

/**
 * Every error code the bridge itself produces. Plugins may add their own string codes;
 * those pass through with `source: "plugin"`.
 */
export const ERROR_CODES = {
  BAD_REQUEST: "BAD_REQUEST",
  UNAUTHORIZED: "UNAUTHORIZED",
  FORBIDDEN: "FORBIDDEN",
  UNKNOWN_METHOD: "UNKNOWN_METHOD",
  NOT_FOUND: "NOT_FOUND",
  METHOD_NOT_ALLOWED: "METHOD_NOT_ALLOWED",
  NO_DOCUMENT: "NO_DOCUMENT",
  DOCUMENT_NOT_FOUND: "DOCUMENT_NOT_FOUND",
  LAYER_NOT_FOUND: "LAYER_NOT_FOUND",
  FONT_NOT_FOUND: "FONT_NOT_FOUND",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  WOULD_LOSE_DATA: "WOULD_LOSE_DATA",
  CONFLICT: "CONFLICT",
  CLIENT_ATTACHED: "CLIENT_ATTACHED",
  JSX_FAILED: "JSX_FAILED",
  TOO_MANY_REQUESTS: "TOO_MANY_REQUESTS",
  NOT_SUPPORTED: "NOT_SUPPORTED",
  HOST_UNAVAILABLE: "HOST_UNAVAILABLE",
  HOST_BUSY: "HOST_BUSY",
  SHUTTING_DOWN: "SHUTTING_DOWN",
  TIMEOUT: "TIMEOUT",
  CANCELLED: "CANCELLED",
  ROLLED_BACK: "ROLLED_BACK",
  PLUGIN_NOT_FOUND: "PLUGIN_NOT_FOUND",
  PLUGIN_LOAD_FAILED: "PLUGIN_LOAD_FAILED",
  PLUGIN_REGISTRATION_FAILED: "PLUGIN_REGISTRATION_FAILED",
  PLUGIN_LIFECYCLE_FAILED: "PLUGIN_LIFECYCLE_FAILED",
  PLUGIN_UNAVAILABLE: "PLUGIN_UNAVAILABLE",
  INTERNAL: "INTERNAL",
} as const;
export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

/** Where an error came from (the bridge fixes the values). */
export const ErrorSourceSchema = z.enum(["protocol", "bridge", "host", "jsx", "plugin"]);
export type ErrorSource = z.infer<typeof ErrorSourceSchema>;

/** The wire shape of an error. */
export const ProtocolErrorSchema = z.object({
  code: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
  retryable: z.boolean().optional(),
  source: ErrorSourceSchema.optional(),
  requestId: z.string().optional(),
  method: z.string().optional(),
  pluginId: z.string().optional(),
});
export type ProtocolError = z.infer<typeof ProtocolErrorSchema>;

interface ErrorRule {
  readonly status: number;
  readonly retryable: boolean;
  readonly source: ErrorSource;
}

/** The one table from code to HTTP status, default `retryable` and `source`. */
export const ERROR_RULES: Readonly<Record<ErrorCode, ErrorRule>> = {
  BAD_REQUEST: { status: 400, retryable: false, source: "protocol" },
  UNAUTHORIZED: { status: 401, retryable: false, source: "protocol" },
  FORBIDDEN: { status: 403, retryable: false, source: "protocol" },
  UNKNOWN_METHOD: { status: 404, retryable: false, source: "protocol" },
  NOT_FOUND: { status: 404, retryable: false, source: "protocol" },
  /** An HTTP route that exists was asked with a verb it does not answer; the `Allow` header lists those it does. */
  METHOD_NOT_ALLOWED: { status: 405, retryable: false, source: "protocol" },
  NO_DOCUMENT: { status: 409, retryable: false, source: "host" },
  DOCUMENT_NOT_FOUND: { status: 404, retryable: false, source: "host" },
  LAYER_NOT_FOUND: { status: 404, retryable: false, source: "host" },
  /** A text edit named a font the editor does not have; `details.near` lists up to 10 of its fonts closest to the name. */
  FONT_NOT_FOUND: { status: 404, retryable: false, source: "host" },
  PAYLOAD_TOO_LARGE: { status: 413, retryable: false, source: "protocol" },
  /** A save would write a file lacking what the document was opened with; the caller must pass `allowLossy`. */
  WOULD_LOSE_DATA: { status: 409, retryable: false, source: "bridge" },
  /**
   * An edit passed `ifRevision` and the document has moved on since: nothing was changed; `details.revision` is
   * the document's revision now.
   */
  CONFLICT: { status: 409, retryable: false, source: "bridge" },
  /** `?resume=<id>&takeover=0` named a logical client that another socket holds. */
  CLIENT_ATTACHED: { status: 409, retryable: false, source: "bridge" },
  JSX_FAILED: { status: 422, retryable: false, source: "jsx" },
  TOO_MANY_REQUESTS: { status: 429, retryable: true, source: "bridge" },
  NOT_SUPPORTED: { status: 501, retryable: false, source: "host" },
  HOST_UNAVAILABLE: { status: 503, retryable: true, source: "host" },
  HOST_BUSY: { status: 503, retryable: true, source: "bridge" },
  SHUTTING_DOWN: { status: 503, retryable: true, source: "bridge" },
  TIMEOUT: { status: 504, retryable: true, source: "bridge" },
  /** The caller cancelled the call (`request:cancel`, an aborted SDK call, an HTTP client that went away). */
  CANCELLED: { status: 499, retryable: false, source: "bridge" },
  /**
   * An entry of an atomic batch that succeeded, then was undone because a later entry failed (that entry's error
   * says how many steps were undone in `details.rolledBack`). Only ever an entry of a batch's result.
   */
  ROLLED_BACK: { status: 409, retryable: false, source: "bridge" },
  PLUGIN_NOT_FOUND: { status: 404, retryable: false, source: "plugin" },
  PLUGIN_LOAD_FAILED: { status: 503, retryable: false, source: "plugin" },
  PLUGIN_REGISTRATION_FAILED: { status: 503, retryable: false, source: "plugin" },
  PLUGIN_LIFECYCLE_FAILED: { status: 503, retryable: false, source: "plugin" },
  /** An isolated plugin's worker crashed or is restarting; calls in flight and calls meanwhile answer this. */
  PLUGIN_UNAVAILABLE: { status: 503, retryable: true, source: "plugin" },
  INTERNAL: { status: 500, retryable: false, source: "bridge" },
};

/** HTTP status for any code; unknown (plugin) codes map to 500 unless the error names its own status. */
export function statusForError(error: ProtocolError): number {
  const status = error.details?.["httpStatus"];
  if (typeof status === "number" && Number.isInteger(status) && status >= 400 && status <= 599) return status;
  return ERROR_RULES[error.code as ErrorCode]?.status ?? 500;
}

const BRAND = Symbol.for("image-editor-bridge.BridgeError");

/**
 * The local, throwable error. It carries a {@link ProtocolError} and crosses the wire only through
 * `toProtocolError`. Use {@link isBridgeError} rather than `instanceof` (copies of the package may coexist).
 *
 * @example
 * throw new BridgeError("LAYER_NOT_FOUND", "No layer with id 7", { details: { layerId: 7 } });
 */
export class BridgeError extends Error {
  readonly [BRAND] = true;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  readonly retryable: boolean | undefined;
  readonly source: ErrorSource | undefined;
  readonly pluginId: string | undefined;

  constructor(
    code: ErrorCode | (string & {}),
    message: string,
    options: {
      details?: Record<string, unknown>;
      retryable?: boolean;
      source?: ErrorSource;
      pluginId?: string;
      cause?: unknown;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "BridgeError";
    this.code = code;
    this.details = options.details;
    this.retryable = options.retryable;
    this.source = options.source;
    this.pluginId = options.pluginId;
  }
}

/**
 * Makes an error without capturing the stack where it is made: for refusals of a client's mistakes that a flood
 * makes by the thousand (an unknown method, a frame over the rate), whose stack would only point into the bridge
 * and is never sent or read. Capturing it was a fifth of the bridge's work under such a flood.
 */
export function withoutStack<T>(make: () => T): T {
  // V8's (Node's) setting; this module is also the browser client's, where it may not exist and changes nothing.
  const errors = Error as { stackTraceLimit?: number };
  const limit = errors.stackTraceLimit;
  errors.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    if (limit === undefined) delete errors.stackTraceLimit;
    else errors.stackTraceLimit = limit;
  }
}

/** Brand check for {@link BridgeError}. */
export function isBridgeError(value: unknown): value is BridgeError {
  return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
}

/**
 * Whether a value already has the wire shape of a ProtocolError.
 * @deprecated The bridge no longer uses it; it stays exported for users of `image-editor-bridge/protocol`.
 */
export function isProtocolError(value: unknown): value is ProtocolError {
  return ProtocolErrorSchema.safeParse(value).success;
}

/**
 * The one function through which errors cross the wire. Unknown throwables become `INTERNAL` with a generic
 * message: stack traces and host internals never leak.
 */
export function toProtocolError(
  error: unknown,
  context: { requestId?: string; method?: string; pluginId?: string } = {},
): ProtocolError {
  let out: ProtocolError;
  if (isBridgeError(error)) {
    const rule = ERROR_RULES[error.code as ErrorCode];
    out = {
      code: error.code,
      message: error.message,
      retryable: error.retryable ?? rule?.retryable ?? false,
      source: error.source ?? rule?.source ?? (error.pluginId ? "plugin" : "bridge"),
    };
    if (error.details !== undefined) out.details = error.details;
    if (error.pluginId !== undefined) out.pluginId = error.pluginId;
  } else {
    out = { code: ERROR_CODES.INTERNAL, message: "Internal error", retryable: false, source: "bridge" };
  }
  if (context.requestId !== undefined) out.requestId = context.requestId;
  if (context.method !== undefined) out.method = context.method;
  if (context.pluginId !== undefined && out.pluginId === undefined) out.pluginId = context.pluginId;
  return out;
}

/** Turns zod issues into a compact `details.issues` list for BAD_REQUEST errors. */
export function issuesOf(error: z.ZodError): Array<{ path: string; message: string }> {
  return error.issues.slice(0, 20).map((issue) => ({
    path: issue.path.map(String).join("."),
    message: issue.message,
  }));
}
