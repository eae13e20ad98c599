import { BridgeError, spellOutEventTypes } from "../protocol/index.js";
import { defineMethod, type MethodContext, type MethodDefinition, type SubscribingClient } from "./define.js";

function clientOf(ctx: MethodContext, method: string): SubscribingClient {
  const client = ctx.caller.client;
  if (client === null) {
    throw new BridgeError("BAD_REQUEST", `${method} needs a WebSocket connection: HTTP cannot carry events`);
  }
  return client;
}

/** What `event:subscribe` and `event:unsubscribe` take: one type, or several (exactly one of the two; the schema says so). */
interface SubscriptionParams {
  readonly type?: string | undefined;
  readonly types?: readonly string[] | undefined;
}

/** `{type}` answers as it always has; `{types}` lists each type (`"*"` spelled out) and whether it is now subscribed. */
function subscriptionAnswer(params: SubscriptionParams, types: readonly string[], subscribed: boolean) {
  if (params.types === undefined) return { type: params.type!, subscribed, ok: true as const };
  return { subscriptions: types.map((type) => ({ type, subscribed })), ok: true as const };
}

/**
 * Subscriptions belong to the logical client; both calls are idempotent. `"*"` is every type the endpoint accepts but
 * previews (see `spellOutEventTypes`). A subscription naming a type the endpoint does not accept changes nothing.
 */
export const eventMethods: MethodDefinition[] = [
  defineMethod("event:subscribe", {
    description:
      'Subscribes this logical client to an event type (`type`), or to several (`types`); `"*"` means every event type except previews (`layer:previewChange`), which come only when named. The events then arrive as event frames. `{type}` answers `{type, subscribed, ok}`, `{types}` answers `{subscriptions: [{type, subscribed}], ok}`. Idempotent; WebSocket only.',
    examples: [{ type: "selection:changed" }, { types: ["*", "layer:previewChange"] }],
    host: false,
    mutates: false,
    run: (ctx, params) => {
      const client = clientOf(ctx, "event:subscribe");
      const named = params.types ?? [params.type!];
      const accepted = ctx.bridge.acceptedEvents(client.endpoint);
      const streams: Array<[string, NonNullable<ReturnType<typeof ctx.bridge.eventStream>>]> = [];
      // Every type is found before any is subscribed: a call that names an unknown type changes nothing.
      for (const type of spellOutEventTypes(named, accepted)) {
        const stream = ctx.bridge.eventStream(client.endpoint, type, ctx.caller.editorId);
        if (stream !== undefined) streams.push([type, stream]);
        // A type `"*"` brought in that nothing produces on this editor is left out; a type named is refused.
        else if (named.includes(type)) {
          throw new BridgeError("BAD_REQUEST", `Unknown event type "${type}"; accepted: ${accepted.join(", ")}`, { details: { type, accepted } });
        }
      }
      for (const [type, stream] of streams) client.subscribe(type, stream);
      return subscriptionAnswer(params, streams.map(([type]) => type), true);
    },
  }),
  defineMethod("event:unsubscribe", {
    description:
      'Stops delivering an event type (`type`), or several (`types`), to this logical client; `"*"` means the same types as for `event:subscribe`. Answers as `event:subscribe` does. Idempotent; WebSocket only.',
    examples: [{ type: "selection:changed" }, { types: ["*"] }],
    host: false,
    mutates: false,
    run: (ctx, params) => {
      const client = clientOf(ctx, "event:unsubscribe");
      const types = spellOutEventTypes(params.types ?? [params.type!], ctx.bridge.acceptedEvents(client.endpoint));
      for (const type of types) client.unsubscribe(type);
      return subscriptionAnswer(params, types, false);
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
