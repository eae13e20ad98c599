import { isIP } from "node:net";

/** Whether a host name or address is this machine's loopback (`localhost`, `127.x.x.x`, `::1`, `[::1]`). */
export function isLoopbackHost(hostname: string): boolean {
  const name = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (name === "localhost" || name.endsWith(".localhost") || name === "::1") return true;
  return isIP(name) === 4 && name.startsWith("127.");
}
