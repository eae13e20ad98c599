import type { ClientsPort } from "../../actors/clients/port.js";
import type { CallsPort } from "../../calls/port.js";
import type { Limits } from "../../limits.js";
import type { SecurityOptions } from "../security.js";
import type { ServerIdentity } from "../views.js";

/** What the WebSocket transport serves: the clients' door, the calls, and the limits and checks it enforces itself. */
export interface WsPorts {
  readonly clients: ClientsPort;
  readonly calls: CallsPort;
  readonly limits: Limits;
  readonly security: SecurityOptions;
  readonly server: ServerIdentity;
}
