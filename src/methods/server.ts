import { defineMethod, type MethodDefinition } from "./define.js";

/** Server identity and connected clients; answered by the bridge without touching the editor. */
export const serverMethods: MethodDefinition[] = [
  defineMethod("getServerInfo", {
    description:
      "The bridge's name and version, protocol version, the editor and its version, every editor of a pool, the loaded plugins and the files roots. Answered by the bridge without touching the editor.",
    host: false,
    mutates: false,
    run: (ctx) => ctx.bridge.serverInfo(),
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
