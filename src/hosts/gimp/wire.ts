import { connect, type Socket } from "node:net";
import { BridgeError } from "../../protocol/index.js";
import { MAX_REPLY_BYTES, MAX_SCRIPT_BYTES } from "./limits.js";

/*
 * The Script-Fu server wire protocol:
 *   request  'G' · len_hi · len_lo · UTF-8 Scheme source
 *   response 'G' · err (0 ok, 1 error) · len_hi · len_lo · body
 * One TCP connection per request: the server sends its reply one byte at a time, and a fresh socket (in
 * quick-ACK mode) turns that into ~1 ms instead of ~44 ms of Nagle/delayed-ACK stalls.
 */

const MAGIC = 0x47;

/** Where a Script-Fu server listens. */
export interface Endpoint {
  readonly host: string;
  readonly port: number;
}

/** A raw reply: `error` is the server's err byte, `body` the decoded text. */
export interface Reply {
  readonly error: boolean;
  readonly body: string;
}

/** Why an exchange failed below the Scheme level. `refused` means nothing listens (GIMP gone). */
export type WireFailure = "refused" | "closed" | "malformed" | "aborted";

/** A transport-level failure; the adapter decides whether it means GIMP is gone. */
export class WireError extends Error {
  constructor(
    readonly failure: WireFailure,
    message: string,
  ) {
    super(message);
    this.name = "WireError";
  }
}

/** Frames one script. Refuses scripts the 16-bit length cannot describe. */
export function encodeRequest(script: string): Buffer {
  const body = Buffer.from(script, "utf8");
  if (body.length > MAX_SCRIPT_BYTES) {
    throw new BridgeError("PAYLOAD_TOO_LARGE", `Script of ${body.length} bytes exceeds the Script-Fu limit of ${MAX_SCRIPT_BYTES}`, {
      details: { bytes: body.length, maxBytes: MAX_SCRIPT_BYTES },
    });
  }
  const frame = Buffer.allocUnsafe(3 + body.length);
  frame[0] = MAGIC;
  frame.writeUInt16BE(body.length, 1);
  body.copy(frame, 3);
  return frame;
}

/**
 * Sends one script on a fresh connection and resolves with the reply. The whole frame goes out in one `write()`:
 * a partial frame would stall the single-threaded server for every client. `signal` destroys the socket (the
 * server keeps evaluating: GIMP cannot cancel).
 */
export function exchange(endpoint: Endpoint, script: string, signal?: AbortSignal): Promise<Reply> {
  const frame = encodeRequest(script);
  return new Promise<Reply>((resolve, reject) => {
    let settled = false;
    let received: Buffer = Buffer.alloc(0);
    const socket: Socket = connect({ host: endpoint.host, port: endpoint.port, noDelay: true });
    const finish = (error: WireError | undefined, reply?: Reply): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      socket.destroy();
      if (error) reject(error);
      else resolve(reply!);
    };
    const onAbort = (): void => finish(new WireError("aborted", "the call was aborted"));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    socket.once("connect", () => socket.write(frame));
    socket.on("data", (chunk: Buffer) => {
      received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
      if (received[0] !== MAGIC) return finish(new WireError("malformed", "the reply does not start with the Script-Fu magic byte"));
      if (received.length > MAX_REPLY_BYTES) return finish(new WireError("malformed", "the reply is longer than its header says"));
      if (received.length < 4) return;
      const length = received.readUInt16BE(2);
      if (received.length < 4 + length) return;
      finish(undefined, { error: received[1] !== 0, body: received.subarray(4, 4 + length).toString("utf8") });
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNREFUSED") finish(new WireError("refused", `nothing listens on ${endpoint.host}:${endpoint.port}`));
      else finish(new WireError("closed", `the Script-Fu connection failed: ${error.code ?? error.message}`));
    });
    socket.on("close", () => finish(new WireError("closed", "GIMP closed the connection without a complete reply")));
  });
}

/** Resolves once a TCP connection to the endpoint succeeds (the readiness test of the Script-Fu server). */
export function canConnect(endpoint: Endpoint): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: endpoint.host, port: endpoint.port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => {
      socket.destroy();
      resolve(false);
    });
  });
}
