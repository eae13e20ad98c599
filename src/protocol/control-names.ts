/*
 * Names of protocol 1.1's request control, as plain data: the client SDK loads this file in browsers, without zod.
 * The schemas are in `control.ts`.
 */

/** Feature name: `request:cancel` is served. */
export const CANCEL_FEATURE = "cancel";
/** Feature name: a request may carry `progress: true` and then receives `progress` events. */
export const PROGRESS_FEATURE = "progress";

/** Feature name: the editing vocabulary (`layer:update`, `document:resize`, `selection:invert`…) is served. */
export const EDIT_FEATURE = "edit";

/** Feature name: `history:undo`, `history:redo`, `history:go`, `history:list` and atomic batches are served. */
export const HISTORY_FEATURE = "history";

/** The error code of a batch entry whose change was undone because a later entry of its atomic batch failed. */
export const ROLLED_BACK_CODE = "ROLLED_BACK";

/** The method that cancels one of the caller's own requests. */
export const CANCEL_METHOD = "request:cancel";

/** The event type of progress reports. */
export const PROGRESS_EVENT = "progress";
