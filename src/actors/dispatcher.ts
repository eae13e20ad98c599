import { BridgeError, issuesOf, toProtocolError, type ProtocolError } from "../protocol/index.js";
import type { BridgeServices, Caller, MethodContext, MethodDefinition } from "../methods/index.js";
import type { Limits } from "../limits.js";
import type { Logger } from "../logger.js";
import { laneLogName } from "./client.js";
import type { HostSession } from "./host-session.js";
import { Metrics } from "./metrics.js";

/** A call that never reaches the editor still gets a context; its signal never aborts. */
const IDLE_SIGNAL = new AbortController().signal;

/**
 * Decides what happens to a request: finds the method, enforces the per-client in-flight limit, validates
 * params against the method's schema, and runs it directly or through the host mailbox. Transports only
 * translate bytes to and from this.
 */
export class Dispatcher {
  readonly metrics = new Metrics();

  constructor(
    private readonly methods: ReadonlyMap<string, MethodDefinition>,
    private readonly session: HostSession,
    private readonly services: BridgeServices,
    private readonly limits: Limits,
    private readonly log: Logger,
    /** Whether the bridge still takes new calls; false once shutdown began. */
    private readonly accepting: () => boolean = () => true,
    /** A plugin's own method on its endpoint; found before the built-ins there (DESIGN §5). */
    private readonly pluginMethod: (endpoint: string, name: string) => MethodDefinition | undefined = () => undefined,
  ) {}

  /** The method table this dispatcher serves. */
  get table(): ReadonlyMap<string, MethodDefinition> {
    return this.methods;
  }

  /** Runs one call and resolves with its result; rejects with a `BridgeError` (or anything a host threw). */
  async call(caller: Caller, name: string, rawParams: unknown): Promise<unknown> {
    const started = performance.now();
    const method = (caller.endpoint === "root" ? undefined : this.pluginMethod(caller.endpoint, name)) ?? this.methods.get(name);
    try {
      const result = await this.invoke(caller, name, method, rawParams);
      this.metrics.recordCall(this.label(caller, name, method), performance.now() - started, undefined);
      return result;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      this.metrics.recordCall(this.label(caller, name, method), performance.now() - started, typeof code === "string" ? code : "INTERNAL");
      throw error;
    }
  }

  /** Metric label: unknown names collapse into one so callers cannot grow the metrics without bound. */
  private label(caller: Caller, name: string, method: MethodDefinition | undefined): string {
    if (method === undefined) return "(unknown)";
    return this.methods.get(name) === method ? name : `${caller.endpoint}/${name}`;
  }

  private async invoke(caller: Caller, name: string, method: MethodDefinition | undefined, rawParams: unknown): Promise<unknown> {
    if (!this.accepting()) throw new BridgeError("SHUTTING_DOWN", "The bridge is shutting down");
    if (method === undefined) {
      throw new BridgeError("UNKNOWN_METHOD", `Unknown method "${name}"`, { details: { method: name } });
    }
    const parsed = method.params.safeParse(rawParams === undefined || rawParams === null ? {} : rawParams);
    if (!parsed.success) {
      throw new BridgeError("BAD_REQUEST", `Invalid params for ${name}`, { details: { issues: issuesOf(parsed.error) } });
    }
    const params = parsed.data;
    if (!method.host) {
      const ctx: MethodContext = {
        host: this.session.host,
        caller,
        bridge: this.services,
        call: { signal: IDLE_SIGNAL, clientId: caller.lane },
      };
      return method.run(ctx, params);
    }
    return this.session.call(
      {
        lane: caller.lane,
        method: name,
        mutates: method.mutates,
        timeoutMs: method.long ? this.limits.longCallTimeoutMs : this.limits.callTimeoutMs,
      },
      (call) => Promise.resolve(method.run({ host: this.session.host, caller, bridge: this.services, call }, params)),
    );
  }

  /**
   * Answers one WS request frame with the response frame's text. Never throws: every failure becomes a
   * failure response carrying `requestId` and `method` (DESIGN §2 "Errors").
   */
  async respond(caller: Caller, id: string, name: string, params: unknown): Promise<string> {
    const client = caller.client;
    if (client !== null && client.inFlight >= this.limits.maxInFlightPerClient) {
      return this.failure(
        id,
        name,
        new BridgeError("TOO_MANY_REQUESTS", `At most ${this.limits.maxInFlightPerClient} requests may be in flight per client`, {
          details: { limit: this.limits.maxInFlightPerClient },
        }),
        caller,
      );
    }
    if (client !== null) client.inFlight++;
    try {
      const result = await this.call(caller, name, params);
      return JSON.stringify({ id, ok: true, result: result === undefined ? null : result });
    } catch (error) {
      return this.failure(id, name, error, caller);
    } finally {
      if (client !== null) client.inFlight--;
    }
  }

  /** Converts a failure to the wire and logs it once. */
  toWireError(error: unknown, context: { requestId?: string; method?: string; caller?: Caller }): ProtocolError {
    const wire = toProtocolError(error, { requestId: context.requestId, method: context.method });
    // Logs name a client by its id's prefix: the full id is a bearer secret.
    const caller = context.caller;
    const actor = caller === undefined ? undefined : (caller.client?.logName ?? laneLogName(caller.lane));
    if (wire.code === "INTERNAL") {
      this.log.error({ actor, method: context.method, err: error }, "call failed with an internal error");
    } else {
      this.log.info({ actor, method: context.method, code: wire.code }, "call failed");
    }
    return wire;
  }

  private failure(id: string, method: string, error: unknown, caller: Caller): string {
    return JSON.stringify({ id, ok: false, error: this.toWireError(error, { requestId: id, method, caller }) });
  }
}
