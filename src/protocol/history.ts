import { z } from "zod";

/*
 * The history of a document: every edit any client makes is one step, which any client can undo and redo. Steps
 * are numbered from 1 (the oldest kept) to `length`; `current` is the step the document is at, 0 when every kept
 * step is undone.
 */

/** Most steps one `history:undo` or `history:redo` may take. */
export const MAX_HISTORY_STEPS_PER_CALL = 100;

const documentId = z.number().int().optional();
const steps = z.number().int().min(1).max(MAX_HISTORY_STEPS_PER_CALL).optional();

/** One step of a document's history. */
export const HistoryStepSchema = z.object({
  /** 1 for the oldest step kept, `length` for the newest. */
  index: z.number().int().positive(),
  /** What the editor calls the step (the embedded editor and Photoshop: the method). */
  name: z.string(),
  /** The method that made it (`batch` for an atomic batch, the method of a change made otherwise). */
  method: z.string(),
  /** The first characters of the id of the client that made it; `null` for an HTTP caller, a plugin or the editor itself. */
  clientIdPrefix: z.string().nullable(),
});
export type HistoryStep = z.infer<typeof HistoryStepSchema>;

/** Where a document's history stands after an undo, redo or go. */
export const HistoryPositionSchema = z.object({
  documentId: z.number().int(),
  /** The step the document is at now: 0 when every kept step is undone. */
  current: z.number().int().nonnegative(),
  /** Steps kept, undone ones included. */
  length: z.number().int().nonnegative(),
  /** The document's revision after the move. */
  revision: z.number().int().nonnegative(),
});
export type HistoryPosition = z.infer<typeof HistoryPositionSchema>;

/** The history methods' schemas, merged into the method table. */
export const HISTORY_METHOD_SCHEMAS = {
  "history:list": {
    params: z.object({ documentId }).strict(),
    result: HistoryPositionSchema.extend({
      steps: z.array(HistoryStepSchema),
      /** Oldest steps dropped so far to keep the history within its bounds (steps, memory); they cannot be undone. */
      dropped: z.number().int().nonnegative(),
    }),
  },
  "history:undo": { params: z.object({ documentId, steps }).strict(), result: HistoryPositionSchema },
  "history:redo": { params: z.object({ documentId, steps }).strict(), result: HistoryPositionSchema },
  "history:go": {
    params: z.object({ documentId, index: z.number().int().nonnegative() }).strict(),
    result: HistoryPositionSchema,
  },
} as const;

/** `history:changed`: a document's history moved (an edit added a step, or a client undid, redid or went to one). */
export const HISTORY_CHANGED_EVENT = "history:changed";
export const HistoryChangedEventDataSchema = z.object({
  documentId: z.number().int(),
  current: z.number().int().nonnegative(),
  length: z.number().int().nonnegative(),
});
export type HistoryChangedEventData = z.infer<typeof HistoryChangedEventDataSchema>;
