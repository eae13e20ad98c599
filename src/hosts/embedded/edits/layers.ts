import type { EditHandlers } from "./context.js";

/** Layer edits: create, update, delete, duplicate, move, group, ungroup, merge, rasterize, fill, clear. */
export const layerEdits: EditHandlers = {};
