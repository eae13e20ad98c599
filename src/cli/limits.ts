import { DEFAULT_LIMITS, type Limits } from "../limits.js";

/*
 * `--limit name=value` (repeatable) and `BRIDGE_LIMITS` (comma-separated): any named limit from the command line
 * or the environment, checked by name and value. Sizes take a binary unit and durations a time unit, so
 * `maxPayloadBytes=64MiB` and `callTimeoutMs=2min` read as they mean.
 */

/** Limits that may be 0: no redirects followed, the first malformed frame closes the socket, webhooks sent at the bridge's own priority. */
const ZERO_ALLOWED: ReadonlySet<keyof Limits> = new Set(["importMaxRedirects", "maxMalformedFrames", "webhookThreadNice"]);

const BYTE_UNITS: Record<string, number> = { "": 1, B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };
const TIME_UNITS: Record<string, number> = { "": 1, ms: 1, s: 1000, min: 60_000, h: 3_600_000 };

/** `max-payload-bytes` and `maxPayloadBytes` both name a limit. */
function limitName(text: string): keyof Limits | undefined {
  const name = text.trim().replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  return Object.hasOwn(DEFAULT_LIMITS, name) ? (name as keyof Limits) : undefined;
}

function unitsOf(name: keyof Limits): Record<string, number> {
  if (name.endsWith("Bytes")) return BYTE_UNITS;
  if (name.endsWith("Ms")) return TIME_UNITS;
  return { "": 1 };
}

/** One `name=value`; the message of a thrown Error says what was wrong and what is accepted. */
export function parseLimit(item: string): [keyof Limits, number] {
  const eq = item.indexOf("=");
  if (eq === -1) throw new Error(`expects name=value (e.g. maxPayloadBytes=64MiB), got "${item}"`);
  const name = limitName(item.slice(0, eq));
  if (name === undefined) {
    throw new Error(`"${item.slice(0, eq).trim()}" is not a limit; the limits are ${Object.keys(DEFAULT_LIMITS).join(", ")}`);
  }
  const text = item.slice(eq + 1).trim();
  const units = unitsOf(name);
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text);
  const unit = match === null ? undefined : Object.keys(units).find((known) => known.toLowerCase() === match[2]!.toLowerCase());
  const factor = unit === undefined ? undefined : units[unit];
  const value = match === null || factor === undefined ? Number.NaN : Math.round(Number(match[1]) * factor);
  const least = ZERO_ALLOWED.has(name) ? 0 : 1;
  if (!Number.isSafeInteger(value) || value < least) {
    const accepted = Object.keys(units).filter(Boolean);
    const unitHint = accepted.length > 0 ? ` (units: ${accepted.join(", ")})` : "";
    throw new Error(`${name} expects an integer of at least ${least}${unitHint}, got "${text}"`);
  }
  return [name, value];
}

/** The overrides named by `BRIDGE_LIMITS` then `--limit` (a flag given later wins). */
export function parseLimits(items: readonly { item: string; from: string }[]): Partial<Limits> {
  const overrides: Partial<Limits> = {};
  for (const { item, from } of items) {
    try {
      const [name, value] = parseLimit(item);
      overrides[name] = value;
    } catch (error) {
      throw new Error(`${from} ${(error as Error).message}`);
    }
  }
  const resolved = { ...DEFAULT_LIMITS, ...overrides };
  for (const [low, high] of ORDERED) {
    if (resolved[low] > resolved[high]) {
      throw new Error(`limit ${low} (${resolved[low]}) must not exceed ${high} (${resolved[high]})`);
    }
  }
  return overrides;
}

/** Pairs whose first limit must not exceed the second. */
const ORDERED: readonly [keyof Limits, keyof Limits][] = [
  ["outboundSoftBytes", "outboundHardBytes"],
  ["reconnectInitialMs", "reconnectMaxMs"],
  ["callTimeoutMs", "longCallTimeoutMs"],
  ["mailboxDepthPerClient", "mailboxDepth"],
];
