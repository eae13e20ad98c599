export type { BridgeServices, Caller, HttpBinding, MethodContext, MethodDefinition } from "./define.js";
export { defineMethod } from "./define.js";
export { WireImage, isWireImage, IMAGE_MIME } from "./image-result.js";
export { BUILTIN_METHODS, methodTable } from "./table.js";
export { publishSchema, type PublishedSchema } from "./schema.js";
