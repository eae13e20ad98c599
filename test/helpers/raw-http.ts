import { connect } from "node:net";

export interface RawHttpResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * One HTTP/1.1 request written byte for byte over `node:net`, so tests can send request lines, paths and bodies
 * that `fetch` and `node:http` refuse to produce. `Connection: close` lets the response end with the socket.
 */
export function rawHttp(port: number, head: string, body: Uint8Array = new Uint8Array()): Promise<RawHttpResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.once("error", reject);
    socket.once("connect", () => {
      socket.write(head);
      if (body.length > 0) socket.write(body);
    });
    socket.once("close", () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf("\r\n\r\n");
      if (end === -1) return reject(new Error(`no HTTP response (${all.length} bytes)`));
      const lines = all.subarray(0, end).toString("latin1").split("\r\n");
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "")?.[1] ?? Number.NaN);
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(":");
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let rest: Buffer = all.subarray(end + 4);
      if (headers["transfer-encoding"] === "chunked") rest = dechunk(rest);
      resolve({ status, headers, body: rest });
    });
  });
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf("\r\n", at);
    if (eol === -1) break;
    const size = Number.parseInt(data.subarray(at, eol).toString("latin1"), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** A request head with `Host`, `Connection: close` and, when a body is given, its `Content-Length`. */
export function requestHead(verb: string, target: string, port: number, headers: Record<string, string> = {}, bodyLength?: number): string {
  const { Host: host = `127.0.0.1:${port}`, ...rest } = headers;
  const lines = [`${verb} ${target} HTTP/1.1`, `Host: ${host}`, "Connection: close"];
  for (const [k, v] of Object.entries(rest)) lines.push(`${k}: ${v}`);
  if (bodyLength !== undefined) lines.push(`Content-Length: ${bodyLength}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}
