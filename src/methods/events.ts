import { BridgeError } from "../protocol/index.js";
import { defineMethod, type MethodContext, type MethodDefinition, type SubscribingClient } from "./define.js";

function clientOf(ctx: MethodContext, method: string): SubscribingClient {
  const client = ctx.caller.client;
  if (client === null) {
    throw new BridgeError("BAD_REQUEST", `${method} needs a WebSocket connection: HTTP cannot carry events`);
  }
  return client;
}

/** Subscriptions belong to the logical client; both calls are idempotent. */
export const eventMethods: MethodDefinition[] = [
  defineMethod("event:subscribe", {
    description:
      "Subscribes this logical client to an event type; the events then arrive as event frames. Idempotent; WebSocket only.",
    examples: [{ type: "selection:changed" }],
    host: false,
    mutates: false,
    run: (ctx, { type }) => {
      const client = clientOf(ctx, "event:subscribe");
      const stream = ctx.bridge.eventStream(client.endpoint, type, ctx.caller.editorId);
      if (stream === undefined) {
        const accepted = ctx.bridge.acceptedEvents(client.endpoint);
        throw new BridgeError("BAD_REQUEST", `Unknown event type "${type}"; accepted: ${accepted.join(", ")}`, {
          details: { type, accepted },
        });
      }
      client.subscribe(type, stream);
      return { type, subscribed: true, ok: true as const };
    },
  }),
  defineMethod("event:unsubscribe", {
    description:
      "Stops delivering an event type to this logical client. Idempotent; WebSocket only.",
    examples: [{ type: "selection:changed" }],
    host: false,
    mutates: false,
    run: (ctx, { type }) => {
      clientOf(ctx, "event:unsubscribe").unsubscribe(type);
      return { type, subscribed: false, ok: true as const };
    },
  }),
  defineMethod("selection:change", {
    description:
      "Keeps the selection watcher running for this client (`enabled: false` stops it), so `selection:changed` events flow. WebSocket only.",
    examples: [{ enabled: true }],
    host: false,
    mutates: false,
    run: (ctx, { enabled }) => ({
      watching: clientOf(ctx, "selection:change").watch("selection:change", ctx.bridge.selectionWatch(ctx.caller.editorId), enabled ?? true),
      ok: true as const,
    }),
  }),
];
