import { DEFAULT_LISTEN } from "../bridge/options.js";
import { UsageError } from "./errors.js";
import type { PhotoshopAddress } from "../hosts/factory.js";

/* Addresses on the command line: where the bridge listens, and the editors' `host:port`. */

/** The forms `--listen` takes, quoted in its usage errors. */
export const LISTEN_FORMS = "host:port, [ipv6]:port or a bare port (e.g. 127.0.0.1:7700, [::1]:7700 or 7700)";

/** The highest TCP port; 0 asks the system for a free one. */
const MAX_PORT = 65535;

/**
 * Parses `host:port`, `[v6]:port`, `:port` or a bare `port` (which listens on 127.0.0.1, never on every
 * interface). A host without a port is refused rather than guessed: `127.0.0.1` must not become `127.0.0.:1`.
 */
export function parseListen(value: string, from = "--listen"): { host: string; port: number } {
  const text = value.trim();
  const match = /^(\d+)$/.exec(text) ?? /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d+)$/.exec(text);
  const portText = match === null ? undefined : match.length === 2 ? match[1] : match[3];
  const port = Number(portText);
  if (match === null || portText === undefined || port > MAX_PORT) {
    const noPort = /^(\[[^\]]+\]|[^:[\]]+)$/.test(text) ? `: "${text}" names a host but no port` : `, got "${value}"`;
    throw new UsageError(`${from} expects ${LISTEN_FORMS}${noPort}`);
  }
  const host = match.length === 2 ? undefined : (match[1] ?? match[2]);
  return { host: host || DEFAULT_LISTEN.host, port };
}

/**
 * Parses `host:port`, `[v6]:port`, `host`, `[v6]` or a bare IPv6 address (which cannot carry a port); `port`
 * fills in a missing port, and without it a port is required.
 */
export function parseHostPort(value: string, flag: string, port?: number): PhotoshopAddress {
  const text = value.trim();
  const bad = (): never => {
    const form = port === undefined ? "host:port" : "host[:port]";
    throw new UsageError(`${flag} expects ${form} (IPv6 as [address]:port), got "${value}"`);
  };
  const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(text) ?? /^([^:[\]]+)(?::(\d+))?$/.exec(text);
  const bareV6 = !match && /^[0-9a-f:.]+$/i.test(text) && text.split(":").length > 2;
  if (!match && !bareV6) return bad();
  const host = bareV6 ? text : match![1]!;
  const portText = bareV6 ? undefined : match![2];
  const number = portText === undefined ? port : Number(portText);
  if (number === undefined || !Number.isInteger(number) || number < 1 || number > 65535) return bad();
  return { host, port: number };
}

/** `host:port`, with an IPv6 host in brackets. */
export const formatHostPort = ({ host, port }: PhotoshopAddress): string => (host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`);
