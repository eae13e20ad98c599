/** Root WebSocket path of the bridge (DESIGN §2 "Address"); plugin endpoints are `/ws/{pluginId}`. */
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

/** The address that resumes logical client `clientId` (DESIGN §2 "Resume"). */
export function withResume(wsUrl: string, clientId: string): string {
  const url = new URL(wsUrl);
  url.searchParams.set("resume", clientId);
  return url.toString();
}
