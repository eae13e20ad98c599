import type { MethodDefinition } from "./define.js";
import { actionMethods } from "./action.js";
import { clientMethods } from "./clients.js";
import { documentMethods } from "./document.js";
import { compMethods } from "./edit-comps.js";
import { contentEditMethods } from "./edit-contents.js";
import { documentEditMethods } from "./edit-document.js";
import { effectEditMethods } from "./edit-effects.js";
import { filterEditMethods } from "./edit-filters.js";
import { layerEditMethods } from "./edit-layer.js";
import { selectionEditMethods } from "./edit-selection.js";
import { eventMethods } from "./events.js";
import { historyMethods } from "./history.js";
import { imageMethods } from "./image.js";
import { jsxMethods } from "./jsx.js";
import { layerMethods } from "./layer.js";
import { selectionMethods } from "./selection.js";
import { serverMethods } from "./server.js";
import { templateMethods } from "./template.js";
import { textMethods } from "./text.js";
import { webhookMethods } from "./webhook.js";

/** The built-in method table: WS dispatch, HTTP routes and published schemas all derive from it. */
export const BUILTIN_METHODS: readonly MethodDefinition[] = [
  ...serverMethods,
  ...clientMethods,
  ...eventMethods,
  ...documentMethods,
  ...layerMethods,
  ...imageMethods,
  ...selectionMethods,
  ...layerEditMethods,
  ...contentEditMethods,
  ...documentEditMethods,
  ...compMethods,
  ...selectionEditMethods,
  ...filterEditMethods,
  ...effectEditMethods,
  ...textMethods,
  ...templateMethods,
  ...historyMethods,
  ...actionMethods,
  ...jsxMethods,
  ...webhookMethods,
];

export function methodTable(methods: readonly MethodDefinition[] = BUILTIN_METHODS): ReadonlyMap<string, MethodDefinition> {
  return new Map(methods.map((m) => [m.name, m]));
}
