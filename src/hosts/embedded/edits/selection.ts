import type { EditHandlers } from "./context.js";

/** Selection edits: all, clear, invert, modify, from a layer, from a colour. */
export const selectionEdits: EditHandlers = {};
