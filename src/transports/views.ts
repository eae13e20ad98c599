import type { Health, Readiness } from "../protocol/index.js";

/** Who answers: the `server` of the `connected` frame and of the published contract. */
export interface ServerIdentity {
  readonly name: string;
  readonly version: string;
}

/** What the HTTP transport shows of the bridge as a whole: it serves these views, the bridge makes them. */
export interface BridgeViews {
  readonly server: ServerIdentity;
  /** `GET /health`: liveness, a small fixed body. */
  health(): Health;
  /** `GET /ready`: `ok`, `degraded` (some part missing) or `down` (no editor ready, or shutting down: 503), with reasons. */
  readiness(): Readiness;
  /** `GET /status`: the operator's detailed view (editor, clients by short id, plugins, files roots). */
  status(): Record<string, unknown>;
  /** `GET /metrics`: the Prometheus text exposition of the bridge's metrics. */
  metrics(): Promise<string>;
}
