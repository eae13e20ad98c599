export * from "./version.js";
export * from "./errors.js";
export * from "./frames.js";
export * from "./resources.js";
export * from "./methods.js";
export * from "./method-names.js";
export * from "./events.js";
export * from "./constants.js";
