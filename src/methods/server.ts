import { defineMethod, type MethodDefinition } from "./define.js";

/** Server identity and connected clients; answered by the bridge without touching the editor. */
export const serverMethods: MethodDefinition[] = [
  defineMethod("getServerInfo", {
    host: false,
    mutates: false,
    // `psVersion` repeats `hostVersion` for clients of the Generator bridge service.
    run: (ctx) => {
      const info = ctx.bridge.serverInfo();
      return info.hostVersion === undefined ? info : { ...info, psVersion: info.hostVersion };
    },
  }),
  defineMethod("server:clients", {
    host: false,
    mutates: false,
    run: (ctx) => ({ clients: ctx.bridge.clients(), editors: ctx.bridge.serverInfo().editors ?? [] }),
  }),
];
