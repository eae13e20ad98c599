import type { IncomingMessage } from "node:http";
import { isLoopbackHost } from "../loopback.js";
import { checkTrustProxy, forwardedAddress, normalizeAddress, TRUST_LOOPBACK } from "./connections.js";

/** Which addresses per-address caps count, as the connection limits count them. */
export interface AddressPolicy {
  /** Proxies whose `X-Forwarded-For` is believed: `loopback` or IP addresses. */
  readonly trustProxy: readonly string[];
  /** Count loopback addresses too (off: local tools share 127.0.0.1 and are not held to a per-address cap). */
  readonly countLoopback: boolean;
}

/**
 * The address a request counts under for a per-address cap: a trusted proxy's request under the address it
 * forwards (the last `X-Forwarded-For` entry), any other under its peer's; undefined when that address is not counted
 * (loopback, unless `countLoopback`) or unknown.
 */
export function addressCounter(policy: AddressPolicy): (req: IncomingMessage | undefined) => string | undefined {
  const trusted = checkTrustProxy(policy.trustProxy);
  const trustLoopback = trusted.includes(TRUST_LOOPBACK);
  return (req) => {
    const raw = req?.socket.remoteAddress;
    if (raw === undefined) return undefined;
    const peer = normalizeAddress(raw);
    const viaProxy = (trustLoopback && isLoopbackHost(peer)) || trusted.includes(peer);
    const address = viaProxy ? (forwardedAddress(req!.headers["x-forwarded-for"]) ?? peer) : peer;
    return policy.countLoopback || !isLoopbackHost(address) ? address : undefined;
  };
}
