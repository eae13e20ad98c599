export { pathBounds } from "./bounds.js";
export { type FillContext, MAX_FILL_PIXELS, renderFill } from "./render.js";
