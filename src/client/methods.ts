import { BUILTIN_METHOD_NAMES } from "../protocol/method-names.js";
import type { BuiltinMethodName } from "../protocol/methods.js";
import type { InvokeArgs, InvokeOptions, InvokeResult } from "./types.js";

/** Groups that get helpers; `event:*` is driven by `on`/`off` instead. */
export const METHOD_GROUPS = ["document", "layer", "image", "selection", "action", "jsx", "server", "webhook", "history", "font", "filter", "layerComp", "template"] as const;
export type MethodGroupName = (typeof METHOD_GROUPS)[number];

/** `client.<group>.<name>(params?, options?)` for every built-in `<group>:<name>`. */
export type MethodGroup<G extends string> = {
  readonly [M in BuiltinMethodName as M extends `${G}:${infer N}` ? N : never]: (...args: InvokeArgs<M>) => Promise<InvokeResult<M>>;
};
export type MethodGroups = { readonly [G in MethodGroupName]: MethodGroup<G> };

type RawInvoke = (method: string, params?: unknown, options?: InvokeOptions) => Promise<unknown>;

/** Builds the group helpers over one invoke function. */
export function createMethodGroups(invoke: RawInvoke): MethodGroups {
  const groups: Record<string, Record<string, RawInvoke extends (m: string, ...rest: infer A) => infer R ? (...args: A) => R : never>> =
    {};
  for (const group of METHOD_GROUPS) groups[group] = {};
  for (const method of BUILTIN_METHOD_NAMES) {
    const colon = method.indexOf(":");
    if (colon === -1) continue;
    const table = groups[method.slice(0, colon)];
    if (table === undefined) continue;
    table[method.slice(colon + 1)] = (params?: unknown, options?: InvokeOptions) => invoke(method, params, options);
  }
  return groups as unknown as MethodGroups;
}

export { BUILTIN_METHOD_NAMES };
