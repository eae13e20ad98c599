import type { EditHandlers } from "./context.js";

/** `layer:transform`: scale, rotate, flip and move one layer. */
export const transformEdits: EditHandlers = {};
