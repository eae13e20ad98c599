export { traceContours, loopArea, type Loop, type MaskLike } from "./contour.js";
export { simplifyLoop } from "./simplify.js";
export { dilateMask, erodeMask, squaredDistance } from "./distance.js";
export { maskToSvgPath, type TracedPath } from "./svg.js";
