import { defineMethod, type MethodDefinition } from "./define.js";

/** Server identity and connected clients; answered by the bridge without touching the editor. */
export const serverMethods: MethodDefinition[] = [
  defineMethod("getServerInfo", {
    description:
      "The bridge's name and version, protocol version, the editor and its version, every editor of a pool, the loaded plugins and the files roots. Answered by the bridge without touching the editor.",
    host: false,
    mutates: false,
    // `psVersion` repeats `hostVersion` for clients of the Generator bridge service.
    run: (ctx) => {
      const info = ctx.bridge.serverInfo();
      // Added to the object `serverInfo()` has just made, not to a copy: spreading it into a new one took about as
      // long as the rest of the dispatcher's work for this call. Last, as in the copy, so the JSON is the same.
      if (info.hostVersion !== undefined) info.psVersion = info.hostVersion;
      return info;
    },
  }),
  defineMethod("server:ping", {
    description:
      "Answers `{pong: true, time}` (the bridge's clock, ms since the epoch) without touching the editor: a keep-alive and round-trip check for clients.",
    host: false,
    mutates: false,
    run: () => ({ pong: true as const, time: Date.now() }),
  }),
  defineMethod("server:clients", {
    description:
      "The logical clients (id prefix, display name, endpoint, state, subscriptions, requests in flight) and the editors they work with.",
    host: false,
    mutates: false,
    run: (ctx) => ({ clients: ctx.bridge.clients(), editors: ctx.bridge.serverInfo().editors ?? [] }),
  }),
];
