import { METHOD_SCHEMAS } from "../protocol/index.js";
import { defineMethod, type MethodDefinition } from "./define.js";
import { requireOp } from "./_internal/support.js";

/**
 * Deadline of a script whose caller gives no `timeoutMs`: long enough for glue scripts, short enough that a
 * forgotten infinite loop does not hold the editor for the whole long-call deadline.
 * @default 30_000
 */
export const DEFAULT_SCRIPT_TIMEOUT_MS = 30_000;

/** A script's own deadline: the caller's, else the default, never past the long call deadline. */
const scriptDeadline = (requested: number | undefined, longCallTimeoutMs: number): number =>
  Math.min(requested ?? DEFAULT_SCRIPT_TIMEOUT_MS, longCallTimeoutMs);

/** Scripts. No HTTP routes (spec §4.2 rule 2). */
export const jsxMethods: MethodDefinition[] = [
  defineMethod("jsx:run", METHOD_SCHEMAS["jsx:run"], {
    host: true,
    mutates: true,
    long: true,
    run: async (ctx, { script, language, timeoutMs }) => ({
      result: await requireOp(ctx.host, "runScript", "jsx:run")(ctx.call, {
        script,
        language,
        timeoutMs: scriptDeadline(timeoutMs, ctx.bridge.limits.longCallTimeoutMs),
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
        timeoutMs: scriptDeadline(timeoutMs, ctx.bridge.limits.longCallTimeoutMs),
      }),
    }),
  }),
];
