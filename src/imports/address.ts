/*
 * Which addresses are not public, and a DNS lookup that refuses them: what keeps an import's URL or a webhook's
 * target from reaching the bridge's own machine or network unless the operator allows it. No dependency beyond
 * Node's, so the webhook delivery thread loads it without the bridge's protocol.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";

/** Whether an IP address is loopback, private, link-local, shared, multicast, reserved or unspecified. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return isPrivateV4(address.split(".").map(Number));
  if (family === 6) {
    const words = parseV6(address);
    if (!words) return true;
    const zeros = (from: number, to: number): boolean => words.slice(from, to).every((w) => w === 0);
    if (zeros(0, 8) || (zeros(0, 7) && words[7] === 1)) return true; // :: and ::1
    // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::/96) carry an IPv4 target.
    const mapped = zeros(0, 5) && (words[5] === 0xffff || words[5] === 0);
    const nat64 = words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6);
    if (mapped || nat64) {
      const w6 = words[6] ?? 0;
      const w7 = words[7] ?? 0;
      return isPrivateV4([w6 >> 8, w6 & 0xff, w7 >> 8, w7 & 0xff]);
    }
    const w0 = words[0] ?? 0;
    if ((w0 & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
    if ((w0 & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
    if ((w0 & 0xffc0) === 0xfec0) return true; // fec0::/10 old site-local
    if ((w0 & 0xff00) === 0xff00) return true; // multicast
    if (w0 === 0x2001 && words[1] === 0x0db8) return true; // documentation
    return false;
  }
  return true;
}

function isPrivateV4([a = 0, b = 0, c = 0]: number[]): boolean {
  return (
    a === 0 || // "this" network
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, cloud metadata
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0 && c === 0) ||
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    a >= 224 // multicast, reserved, broadcast
  );
}

/** The eight 16-bit words of an IPv6 address (zone id dropped), or `undefined` when malformed. */
function parseV6(address: string): number[] | undefined {
  let text = address.replace(/%.*$/, "").toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const part = (s: string | undefined): number[] => (s ? s.split(":").map((w) => Number.parseInt(w, 16)) : []);
  const head = part(halves[0]);
  const tail = part(halves[1]);
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const words = [...head, ...new Array<number>(Math.max(0, fill)).fill(0), ...tail];
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : undefined;
}

/**
 * A DNS lookup that fails when any address of the name is non-public, with the error `refuse` makes. The socket
 * connects to an address checked here, so a name cannot resolve to a public address for the check and a private
 * one for the connection. Imports and webhooks both connect through it.
 */
export function guardedLookup(allowPrivate: boolean, refuse: (host: string, address: string) => Error): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      const blocked = allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a.address));
      if (blocked) return callback(refuse(hostname, blocked.address) as unknown as NodeJS.ErrnoException, "", 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "", 0);
      callback(null, first.address, first.family);
    });
  };
}
