import type { BuiltinMethodName } from "./methods.js";

/**
 * Every built-in method, named once as plain data for code that must not load zod (the client SDK builds its typed
 * helpers from it). `spec` marks the 23 methods of the protocol the bridge implements; the rest are the bridge's
 * own. `satisfies` keeps the keys equal to those of `METHOD_SCHEMAS`: a method missing here, or one here without
 * schemas, fails to type-check.
 */
export const BUILTIN_METHODS = {
  getServerInfo: { spec: true },
  "jsx:run": { spec: true },
  "jsx:execute": { spec: true },
  "event:subscribe": { spec: true },
  "event:unsubscribe": { spec: true },
  "action:autoCutout": { spec: true },
  "action:removeBackground": { spec: true },
  "layer:getInfo": { spec: true },
  "layer:getInfoById": { spec: true },
  "layer:getInfoByIndex": { spec: true },
  "layer:getInfoBySelectionIndex": { spec: true },
  "layer:getCurrentPreview": { spec: true },
  "layer:importImage": { spec: true },
  "layer:select": { spec: false },
  "document:current": { spec: true },
  "document:export": { spec: true },
  "document:save": { spec: true },
  "document:list": { spec: false },
  "document:open": { spec: false },
  "document:create": { spec: false },
  "document:close": { spec: false },
  "document:layers": { spec: false },
  "image:exportLayer": { spec: true },
  "image:exportLayerWithSelectedPath": { spec: true },
  "image:getPreview": { spec: true },
  "image:exportDocument": { spec: true },
  "selection:getArea": { spec: true },
  "selection:getPath": { spec: true },
  "selection:change": { spec: true },
  "selection:set": { spec: false },
  "server:clients": { spec: false },
  "server:ping": { spec: false },
  "server:disconnectClient": { spec: false },
  "webhook:add": { spec: false },
  "webhook:list": { spec: false },
  "webhook:remove": { spec: false },
  "webhook:enable": { spec: false },
  "webhook:deliveries": { spec: false },
  "layer:create": { spec: false },
  "layer:update": { spec: false },
  "layer:delete": { spec: false },
  "layer:duplicate": { spec: false },
  "layer:move": { spec: false },
  "layer:group": { spec: false },
  "layer:ungroup": { spec: false },
  "layer:merge": { spec: false },
  "layer:rasterize": { spec: false },
  "layer:fill": { spec: false },
  "layer:clear": { spec: false },
  "layer:transform": { spec: false },
  "layer:addMask": { spec: false },
  "layer:deleteMask": { spec: false },
  "layer:applyMask": { spec: false },
  "layer:updateMask": { spec: false },
  "document:resize": { spec: false },
  "document:resizeCanvas": { spec: false },
  "document:crop": { spec: false },
  "document:rotate": { spec: false },
  "document:flip": { spec: false },
  "document:duplicate": { spec: false },
  "document:flatten": { spec: false },
  "document:trim": { spec: false },
  "selection:all": { spec: false },
  "selection:clear": { spec: false },
  "selection:invert": { spec: false },
  "selection:modify": { spec: false },
  "selection:fromLayer": { spec: false },
  "selection:fromColor": { spec: false },
} as const satisfies Record<BuiltinMethodName, { readonly spec: boolean }>;

/** The built-in methods' names, in the table's order. */
export const BUILTIN_METHOD_NAMES = Object.keys(BUILTIN_METHODS) as ReadonlyArray<keyof typeof BUILTIN_METHODS>;

/** The methods of the protocol, in the table's order. */
export const SPEC_METHODS = BUILTIN_METHOD_NAMES.filter((name) => BUILTIN_METHODS[name].spec);
