import type { PluginDefinition, PluginHooks, PluginRouteRequest } from "../api.js";
import type { WorkerLink } from "./link.js";
import type { WireRouteResult } from "./protocol.js";

/**
 * A plugin definition standing in for one that runs in a worker: its `setup` runs the real `setup` there and
 * registers, on the bridge's `ctx`, a forwarder for each method, route and hook the worker registered. The
 * bridge then treats it as any in-process plugin: the same atomic registration, deadlines and containment.
 */
export function proxyDefinition(id: string, events: readonly string[], link: WorkerLink): PluginDefinition {
  return {
    id,
    events,
    async setup(ctx) {
      const registration = await link.setup(ctx.config);
      for (const name of registration.methods) {
        ctx.method(name, (params, call) =>
          link.call({ kind: "method", name, params, call: { clientId: call.clientId, endpoint: call.endpoint } }, call.signal),
        );
      }
      registration.routes.forEach(({ verb, path }, index) => {
        ctx.route(verb, path, async (request: PluginRouteRequest) => {
          const { signal, headers, ...rest } = request;
          const wire = { ...rest, params: { ...rest.params }, query: { ...rest.query }, headers: [...headers] };
          const answer = (await link.call({ kind: "route", index, request: wire }, signal)) as WireRouteResult;
          if ("value" in answer) return answer.value;
          const { status, headers: entries, body } = answer.response;
          return new Response(body, { status, headers: entries });
        });
      });
      const hooks: PluginHooks = {};
      for (const name of registration.hooks) {
        hooks[name] = (info: object) => link.call({ kind: "hook", name, info: { ...info } }) as Promise<void>;
      }
      return hooks;
    },
  };
}
