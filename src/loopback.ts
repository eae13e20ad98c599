import { isIP } from "node:net";

/** Whether a host name or address is this machine's loopback (`localhost`, `127.x.x.x`, `::1`, `[::1]`). */
export function isLoopbackHost(hostname: string): boolean {
  // Every connection and upgrade asks this of its peer and its Host: the usual answers first, without a regex.
  if (hostname === "127.0.0.1" || hostname === "localhost" || hostname === "::1") return true;
  const name = hostname.slice(hostname.startsWith("[") ? 1 : 0, hostname.endsWith("]") ? -1 : undefined).toLowerCase();
  if (name === "localhost" || name.endsWith(".localhost") || name === "::1") return true;
  return isIP(name) === 4 && name.startsWith("127.");
}
