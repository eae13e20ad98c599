import { MAX_CLIENT_NAME_LENGTH } from "../../protocol/constants.js";
import { BINARY_FEATURE } from "../../protocol/binary-frames.js";

/** Root WebSocket path of the bridge; plugin endpoints are `/ws/{pluginId}`. */
const WS_ROOT = "/ws";

/** The WebSocket and HTTP addresses a user-given URL stands for (`http://h:p`, `ws://h:p/ws`, `ws://h:p`). */
export function endpointsOf(input: string, pluginId?: string): { ws: string; http: string } {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new TypeError(`Not a URL: "${input}" (expected e.g. http://127.0.0.1:7700 or ws://127.0.0.1:7700/ws)`);
  }
  const secure = url.protocol === "https:" || url.protocol === "wss:";
  if (!["http:", "https:", "ws:", "wss:"].includes(url.protocol)) {
    throw new TypeError(`Unsupported URL scheme "${url.protocol}" (expected http, https, ws or wss)`);
  }
  const host = url.host;
  const http = `${secure ? "https" : "http"}://${host}`;
  let path = url.pathname === "/" || url.pathname === "" ? WS_ROOT : url.pathname.replace(/\/+$/, "");
  if (pluginId !== undefined) path = `${WS_ROOT}/${encodeURIComponent(pluginId)}`;
  return { ws: `${secure ? "wss" : "ws"}://${host}${path}${url.search}`, http };
}

/** The address of one connect: resuming logical client `resume` when given, with a `name`, asking for `binary`. */
export function socketUrl(wsUrl: string, query: { resume?: string | undefined; name?: string | undefined; binary?: boolean }): string {
  if (query.resume === undefined && query.name === undefined && query.binary !== true) return wsUrl;
  const url = new URL(wsUrl);
  if (query.resume !== undefined) url.searchParams.set("resume", query.resume);
  if (query.name !== undefined) url.searchParams.set("name", query.name);
  if (query.binary === true) url.searchParams.set(BINARY_FEATURE, "1");
  return url.toString();
}

/** Characters the bridge refuses in a name: control, format and line/paragraph separators (they could forge logs). */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** Throws a `TypeError` for a `name` the bridge would refuse at upgrade, so the mistake shows at once. */
export function checkClientName(name: string): void {
  const length = [...name].length;
  if (length === 0 || length > MAX_CLIENT_NAME_LENGTH) {
    throw new TypeError(`name must be 1 to ${MAX_CLIENT_NAME_LENGTH} characters, got ${length}`);
  }
  if (UNPRINTABLE.test(name)) throw new TypeError("name must be printable: no control, format or line-separator characters");
}
