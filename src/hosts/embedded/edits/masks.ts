import type { EditHandlers } from "./context.js";

/** Layer mask edits: add, delete, apply, update. */
export const maskEdits: EditHandlers = {};
