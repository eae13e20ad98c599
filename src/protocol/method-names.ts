import type { BuiltinMethodName } from "./methods.js";

/**
 * Names of every built-in method as plain data, for code that must not load zod (the client SDK builds its typed
 * helpers from it). The type check below and a test keep it equal to the keys of `METHOD_SCHEMAS`.
 */
export const BUILTIN_METHOD_NAMES = [
  "getServerInfo",
  "jsx:run",
  "jsx:execute",
  "event:subscribe",
  "event:unsubscribe",
  "action:autoCutout",
  "action:removeBackground",
  "layer:getInfo",
  "layer:getInfoById",
  "layer:getInfoByIndex",
  "layer:getInfoBySelectionIndex",
  "layer:getCurrentPreview",
  "layer:importImage",
  "layer:select",
  "document:current",
  "document:export",
  "document:save",
  "document:list",
  "document:open",
  "document:create",
  "document:close",
  "document:layers",
  "image:exportLayer",
  "image:exportLayerWithSelectedPath",
  "image:getPreview",
  "image:exportDocument",
  "selection:getArea",
  "selection:getPath",
  "selection:change",
  "selection:set",
  "server:clients",
  "webhook:add",
  "webhook:list",
  "webhook:remove",
  "webhook:enable",
  "webhook:deliveries",
] as const satisfies readonly BuiltinMethodName[];

/** Compile-time check: a method added to `METHOD_SCHEMAS` but not listed above fails to type-check here. */
export const METHOD_NAMES_COMPLETE: [Exclude<BuiltinMethodName, (typeof BUILTIN_METHOD_NAMES)[number]>] extends [never] ? true : never = true;
