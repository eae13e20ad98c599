import { BridgeError } from "../../protocol/index.js";
import type { HostAdapter } from "../../hosts/host.js";

type OptionalOps = {
  [K in keyof HostAdapter]-?: undefined extends HostAdapter[K] ? (NonNullable<HostAdapter[K]> extends (...args: never[]) => unknown ? K : never) : never;
}[keyof HostAdapter];

/**
 * Returns an optional host operation bound to the host, or throws `NOT_SUPPORTED` naming the capability, so a
 * missing feature is an honest, typed answer rather than a stub.
 */
export function requireOp<K extends OptionalOps>(host: HostAdapter, op: K, capability: string): NonNullable<HostAdapter[K]> {
  const fn = host[op];
  if (typeof fn !== "function") {
    throw new BridgeError("NOT_SUPPORTED", `The ${host.kind} editor does not support ${capability} yet`, {
      details: { capability, editor: host.kind },
    });
  }
  return (fn as (...args: unknown[]) => unknown).bind(host) as NonNullable<HostAdapter[K]>;
}
