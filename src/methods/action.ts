import { METHOD_SCHEMAS } from "../protocol/index.js";
import { defineMethod, type MethodDefinition } from "./define.js";
import { requireOp } from "./_internal/support.js";

/** Editor actions: select the subject, remove the background. */
export const actionMethods: MethodDefinition[] = [
  defineMethod("action:autoCutout", METHOD_SCHEMAS["action:autoCutout"], {
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/action/auto-cutout" },
    run: (ctx, params) => requireOp(ctx.host, "autoCutout", "action:autoCutout")(ctx.call, params),
  }),
  defineMethod("action:removeBackground", METHOD_SCHEMAS["action:removeBackground"], {
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/action/remove-background" },
    run: (ctx, params) => requireOp(ctx.host, "removeBackground", "action:removeBackground")(ctx.call, params),
  }),
];
