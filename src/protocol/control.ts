import { z } from "zod";
import { RequestIdSchema } from "./frames.js";


/*
 * Protocol 1.1's request control, additive to protocol 1: a caller may cancel a request it sent, and ask for
 * progress events about one. Both are announced in the `connected` handshake's `features`.
 */

/** `request:cancel` params: the id of the request to cancel, as it was sent (a number stays a number). */
export const RequestCancelParamsSchema = z.object({ id: RequestIdSchema });
export type RequestCancelParams = z.infer<typeof RequestCancelParamsSchema>;

/**
 * `request:cancel` result. `cancelled` is true when the request was still unanswered; it then answers
 * `CANCELLED` itself. `state` says where it was: `queued` (removed, never started), `running` (its editor was told to
 * stop), or `unknown` (no such request of this caller: already answered, or never sent), which changes nothing.
 */
export const RequestCancelResultSchema = z.object({
  id: RequestIdSchema,
  cancelled: z.boolean(),
  state: z.enum(["queued", "running", "unknown"]),
});
export type RequestCancelResult = z.infer<typeof RequestCancelResultSchema>;

/**
 * Data of a `progress` event, sent only to the connection that made the request, only when the request carried
 * `progress: true`, and never after its answer. `progress` never decreases; without `total` it is a fraction of 1.
 */
export const ProgressEventDataSchema = z.object({
  requestId: RequestIdSchema,
  progress: z.number().nonnegative(),
  total: z.number().positive().optional(),
  message: z.string().optional(),
});
export type ProgressEventData = z.infer<typeof ProgressEventDataSchema>;
