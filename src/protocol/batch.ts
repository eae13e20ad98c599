import { z } from "zod";
import { ProtocolErrorSchema } from "./errors.js";
import { MAX_METHOD_NAME_LENGTH, RequestIdSchema } from "./frames.js";

/*
 * A batch: several calls in one request, run one after the other for the caller, answered by one response whose
 * result lists each call's outcome in order. Additive to protocol 1; announced as a feature.
 */

/** Feature name: the `batch` method is served. */
export const BATCH_FEATURE = "batch";

/** The method that runs a batch. It may not appear inside a batch. */
export const BATCH_METHOD = "batch";

/** One call of a batch: a request frame's fields, with `id` optional (echoed in its entry when given). */
export const BatchRequestSchema = z.object({
  method: z.string().min(1).max(MAX_METHOD_NAME_LENGTH),
  params: z.unknown().optional(),
  id: RequestIdSchema.optional(),
});
export type BatchRequest = z.infer<typeof BatchRequestSchema>;

/**
 * `batch` params. `requests` run in order, each after the previous one answered; at most `maxBatchRequests` of
 * them (a bridge limit, 64 by default). With `haltOnFailure`, the first failure ends the batch: the calls after it
 * are not run and have no entry, so the result is shorter than `requests`.
 */
export const BatchParamsSchema = z.object({
  requests: z.array(BatchRequestSchema),
  haltOnFailure: z.boolean().optional(),
  /**
   * All or nothing: every request addresses one document, they run as one job that holds its editor (no other
   * client's call runs between them) and make one history step; when one fails, what the earlier ones changed is
   * undone. Implies `haltOnFailure`. Needs an editor with a history (`NOT_SUPPORTED` otherwise).
   */
  atomic: z.boolean().optional(),
});
export type BatchParams = z.infer<typeof BatchParamsSchema>;

/** The outcome of one call that answered: its result, as a response's `result`. */
export const BatchSuccessEntrySchema = z.object({ id: RequestIdSchema.optional(), ok: z.literal(true), result: z.unknown() });
/** The outcome of one call that failed: its error, as a failed response's `error`. */
export const BatchFailureEntrySchema = z.object({ id: RequestIdSchema.optional(), ok: z.literal(false), error: ProtocolErrorSchema });
/** One entry of a batch's result, discriminated by `ok`; `id` echoes the call's when it gave one. */
export const BatchEntrySchema = z.discriminatedUnion("ok", [BatchSuccessEntrySchema, BatchFailureEntrySchema]);
export type BatchEntry = z.infer<typeof BatchEntrySchema>;

/** `batch` result: one entry per call run, in the order of `requests`. */
export const BatchResultSchema = z.array(BatchEntrySchema);
export type BatchResult = z.infer<typeof BatchResultSchema>;
