export * from "./connection.js";
export * from "./options.js";
export * from "./errors.js";
export * from "./http.js";
export * from "./methods.js";
export type * from "./types.js";
export type { BackoffOptions } from "./_internal/backoff.js";
export type { ConnectedEventData } from "../protocol/events.js";
