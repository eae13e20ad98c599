export type { BridgeServices, CallCancelSignal, CallOthers, Caller, EventCursor, HttpBinding, MethodContext, MethodDefinition, MethodRoute, SerializedEvent, SubscribingClient, WebhookService } from "./define.js";
export { allowedFor, defineMethod, outsideScope } from "./define.js";
export { BinaryImageResponse, type BinaryPart, holdsImages, WireImage, imageResultJson, isWireImage, LARGE_IMAGE_BYTES, withDataUris, withImages } from "./image-result.js";
export { IMAGE_MIME, previewPayload } from "./_internal/images.js";
export { BUILTIN_METHODS, methodTable } from "./table.js";
export { keepEncoding, keptAnswerFrame } from "./encoded.js";
export { publishSchema, type PublishedSchema } from "./schema.js";
