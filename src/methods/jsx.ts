import { METHOD_SCHEMAS } from "../protocol/index.js";
import { defineMethod, type MethodDefinition } from "./define.js";
import { requireOp } from "./_internal/support.js";

/** Scripts. No HTTP routes (spec §4.2 rule 2). The script's own deadline never exceeds the long call deadline. */
export const jsxMethods: MethodDefinition[] = [
  defineMethod("jsx:run", METHOD_SCHEMAS["jsx:run"], {
    host: true,
    mutates: true,
    long: true,
    run: async (ctx, { script, language, timeoutMs }) => ({
      result: await requireOp(ctx.host, "runScript", "jsx:run")(ctx.call, {
        script,
        language,
        timeoutMs: Math.min(timeoutMs ?? ctx.bridge.limits.longCallTimeoutMs, ctx.bridge.limits.longCallTimeoutMs),
      }),
    }),
  }),
  defineMethod("jsx:execute", METHOD_SCHEMAS["jsx:execute"], {
    host: true,
    mutates: true,
    long: true,
    run: async (ctx, { name, params, timeoutMs }) => ({
      result: await requireOp(ctx.host, "executeScript", "jsx:execute")(ctx.call, {
        name,
        params: params ?? {},
        timeoutMs: Math.min(timeoutMs ?? ctx.bridge.limits.longCallTimeoutMs, ctx.bridge.limits.longCallTimeoutMs),
      }),
    }),
  }),
];
