import { BridgeError } from "../protocol/index.js";
import { defineMethod, type MethodContext, type MethodDefinition, type WebhookService } from "./define.js";

function webhooks(ctx: MethodContext): WebhookService {
  const service = ctx.bridge.webhooks;
  if (service === undefined) throw new BridgeError("NOT_SUPPORTED", "This bridge has no webhooks", { details: { capability: "webhook" } });
  return service;
}

/** Webhooks: the bridge POSTs events, signed, to receivers clients name. Answered by the bridge, never the editor. */
export const webhookMethods: MethodDefinition[] = [
  defineMethod("webhook:add", {
    description:
      "Adds a webhook: every event of the named types (about `documentId` only, when given) is POSTed to `url`, signed with HMAC-SHA256 over timestamp and body. Answers the webhook and its secret, which is shown only here.",
    host: false,
    mutates: true,
    http: { verb: "POST", path: "/webhooks" },
    examples: [{ url: "https://hooks.example.com/bridge", types: ["selection:changed", "documentChanged"] }],
    run: (ctx, params) => webhooks(ctx).add(params),
  }),
  defineMethod("webhook:list", {
    description: "The webhooks, each with its state and counts (queued, delivered, failed attempts, dropped); never their secrets.",
    host: false,
    mutates: false,
    http: { verb: "GET", path: "/webhooks" },
    run: (ctx) => ({ webhooks: webhooks(ctx).list() }),
  }),
  defineMethod("webhook:remove", {
    description: "Removes a webhook: nothing more is delivered to it, and what was queued for it is dropped. Answers `removed: false` for an unknown id.",
    host: false,
    mutates: true,
    http: { verb: "POST", path: "/webhooks/:id/remove" },
    run: async (ctx, { id }) => ({ id, removed: await webhooks(ctx).remove(id) }),
  }),
  defineMethod("webhook:enable", {
    description: "Enables a webhook that was disabled after a run of failed deliveries; what was queued goes out again, oldest first.",
    host: false,
    mutates: true,
    http: { verb: "POST", path: "/webhooks/:id/enable" },
    run: (ctx, { id }) => webhooks(ctx).enable(id),
  }),
  defineMethod("webhook:deliveries", {
    description: "A webhook's delivery log: its most recent attempts, oldest first (status, duration, attempt, error).",
    host: false,
    mutates: false,
    http: { verb: "GET", path: "/webhooks/:id/deliveries" },
    run: (ctx, { id }) => webhooks(ctx).deliveries(id),
  }),
];
