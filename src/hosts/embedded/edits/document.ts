import type { EditHandlers } from "./context.js";

/** Whole-document edits: resize, canvas size, crop, rotate, flip, duplicate, flatten, trim. */
export const documentEdits: EditHandlers = {};
