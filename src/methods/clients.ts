import { defineMethod, type MethodDefinition } from "./define.js";

/** What an operator does to other clients: answered by the bridge without touching the editor. */
export const clientMethods: MethodDefinition[] = [
  defineMethod("server:disconnectClient", {
    description:
      "Closes the socket of the client whose id starts with `clientIdPrefix` (at least 4 characters, as `server:clients` shows 8) with 4010: the logical client stays resumable. With `evict: true` the logical client is disposed too and its socket closed with 4410. `NOT_FOUND` when no client's id starts with the prefix, `BAD_REQUEST` when several do.",
    host: false,
    mutates: true,
    http: { verb: "POST", path: "/clients/:clientIdPrefix/disconnect" },
    examples: [{ clientIdPrefix: "3f2a9c1e" }, { clientIdPrefix: "3f2a9c1e", evict: true }],
    run: (ctx, { clientIdPrefix, evict }) => ctx.bridge.disconnectClient(clientIdPrefix, evict === true),
  }),
];
