import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";

/** WebSocket opcodes (RFC 6455 §5.2). */
export const OPCODES = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;

export interface FrameOptions {
  /** @default true */
  fin?: boolean;
  /** Client frames must be masked; false writes a protocol violation. @default true */
  mask?: boolean;
  /** RSV1–3 bits (0–7); anything but 0 is a violation without an extension. @default 0 */
  rsv?: number;
  /** Length written in the header instead of the payload's real length (for lying frames). */
  declaredLength?: number;
}

/** Encodes one WebSocket frame by hand, so tests can write frames no well-behaved client would. */
export function encodeFrame(opcode: number, payload: Uint8Array | string, options: FrameOptions = {}): Buffer {
  const body = typeof payload === "string" ? Buffer.from(payload, "utf8") : Buffer.from(payload);
  const fin = options.fin ?? true;
  const masked = options.mask ?? true;
  const length = options.declaredLength ?? body.length;
  const first = (fin ? 0x80 : 0) | (((options.rsv ?? 0) & 7) << 4) | (opcode & 0x0f);
  let header: Buffer;
  if (length < 126) {
    header = Buffer.from([first, (masked ? 0x80 : 0) | length]);
  } else if (length < 0x10000) {
    header = Buffer.alloc(4);
    header[0] = first;
    header[1] = (masked ? 0x80 : 0) | 126;
    header.writeUInt16BE(length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = first;
    header[1] = (masked ? 0x80 : 0) | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  if (!masked) return Buffer.concat([header, body]);
  const key = randomBytes(4);
  const out = Buffer.alloc(body.length);
  for (let i = 0; i < body.length; i++) out[i] = body[i]! ^ key[i & 3]!;
  return Buffer.concat([header, key, out]);
}

export interface RawMessage {
  opcode: number;
  data: Buffer;
}

/**
 * A WebSocket client written on `node:net`: it performs the upgrade, then writes whatever bytes a test gives it
 * and decodes what the server sends (server frames are unmasked). It can stop reading (`pause`) to play a slow
 * consumer, and reports the close code the server sent.
 */
export class RawWsClient {
  readonly messages: RawMessage[] = [];
  /** Close code of the server's close frame, once received. */
  closeCode: number | undefined;
  readonly ended: Promise<void>;
  private buffer: Buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  private fragmentOpcode = 0;
  private waiters: Array<() => void> = [];

  private constructor(readonly socket: Socket) {
    this.ended = new Promise((resolve) => socket.once("close", () => resolve()));
    this.ended.then(() => this.wake());
    socket.on("error", () => {});
  }

  /** Connects and upgrades; rejects with the status line when the server refuses the upgrade. `Host` may be overridden. */
  static open(port: number, path = "/ws", headers: Record<string, string> = {}): Promise<RawWsClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, "127.0.0.1");
      let head = Buffer.alloc(0);
      const onData = (chunk: Buffer): void => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf("\r\n\r\n");
        if (end === -1) return;
        socket.off("data", onData);
        const status = head.subarray(0, head.indexOf("\r\n")).toString();
        if (!/^HTTP\/1\.1 101/.test(status)) {
          socket.destroy();
          reject(new Error(status));
          return;
        }
        const client = new RawWsClient(socket);
        socket.on("data", (more: Buffer) => client.onData(more));
        client.onData(head.subarray(end + 4));
        resolve(client);
      };
      socket.on("data", onData);
      socket.once("error", reject);
      socket.once("connect", () => {
        const lines = [
          `GET ${path} HTTP/1.1`,
          ...("Host" in headers ? [] : [`Host: 127.0.0.1:${port}`]),
          "Upgrade: websocket",
          "Connection: Upgrade",
          `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}`,
          "Sec-WebSocket-Version: 13",
          ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
        ];
        socket.write(`${lines.join("\r\n")}\r\n\r\n`);
      });
    });
  }

  /** Text messages parsed as JSON (unparseable ones are skipped). */
  json(): Array<Record<string, unknown>> {
    const out: Array<Record<string, unknown>> = [];
    for (const m of this.messages) {
      if (m.opcode !== OPCODES.text) continue;
      try {
        out.push(JSON.parse(m.data.toString("utf8")) as Record<string, unknown>);
      } catch {
        // not JSON: not a frame the bridge would send
      }
    }
    return out;
  }

  write(bytes: Uint8Array): void {
    if (!this.socket.destroyed) this.socket.write(bytes);
  }

  /** Sends a well-formed masked text frame. */
  sendText(text: string): void {
    this.write(encodeFrame(OPCODES.text, text));
  }

  /** Stops reading: the kernel buffers fill and the server's outbound queue grows. */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** Resolves once `condition` holds, re-checked on every decoded frame and at close. */
  until(condition: () => boolean): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (condition()) resolve();
        else this.waiters.push(check);
      };
      this.waiters.push(check);
    });
  }

  /** Resolves when the server closed the connection (TCP), whatever it sent before. */
  get closed(): Promise<void> {
    return this.ended;
  }

  private wake(): void {
    for (const check of this.waiters.splice(0)) check();
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      if (this.buffer.length < 2) break;
      const b0 = this.buffer[0]!;
      const b1 = this.buffer[1]!;
      let length = b1 & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.buffer.length < 4) break;
        length = this.buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.buffer.length < 10) break;
        length = Number(this.buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.buffer.length < offset + length) break;
      const payload = Buffer.from(this.buffer.subarray(offset, offset + length));
      this.buffer = this.buffer.subarray(offset + length);
      this.onFrame((b0 & 0x80) !== 0, b0 & 0x0f, payload);
    }
    this.wake();
  }

  private onFrame(fin: boolean, opcode: number, payload: Buffer): void {
    if (opcode === OPCODES.close) {
      this.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
      this.write(encodeFrame(OPCODES.close, payload.subarray(0, 2)));
      this.socket.end();
      return;
    }
    if (opcode === OPCODES.ping) {
      this.write(encodeFrame(OPCODES.pong, payload));
      return;
    }
    if (opcode === OPCODES.pong) return;
    if (opcode !== OPCODES.continuation) {
      this.fragmentOpcode = opcode;
      this.fragments = [];
    }
    this.fragments.push(payload);
    if (!fin) return;
    this.messages.push({ opcode: this.fragmentOpcode, data: Buffer.concat(this.fragments) });
    this.fragments = [];
  }
}
