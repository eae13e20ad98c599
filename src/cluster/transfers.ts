/*
 * Messages bigger than a NATS message. NATS refuses a message over the server's `max_payload` (1 MB by default),
 * and an export, an import or a replay buffer is often bigger. Rather than raise the server's limit, a bridge
 * keeps such a message for a while and sends a reference to it; the other bridge pulls it in chunks of
 * `clusterChunkBytes` by request-reply on the sender's transfer subject, a few chunks in flight. A transfer is
 * dropped once pulled to its end, or after `clusterTransferTtlMs` if nobody does.
 *
 * What it costs: one round trip per chunk (several in flight), and the message held in the sender's memory until
 * pulled; nothing is written to disk (JetStream's object store would write every byte twice, to the store and back).
 */
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Limits } from "../limits.js";
import { BridgeError } from "../protocol/index.js";

/** What crosses instead of a message too big for NATS. */
export interface TransferRef {
  readonly subject: string;
  readonly id: string;
  readonly size: number;
  /** Bytes per chunk the holder answers. */
  readonly chunk: number;
}

/** Chunks pulled at once. */
const CHUNKS_IN_FLIGHT = 4;

export class Transfers {
  private readonly held = new Map<string, { bytes: Uint8Array; chunk: number; timer: NodeJS.Timeout; pulled: number; shared: boolean }>();
  private next = 1;
  private sub: Subscription | undefined;

  constructor(
    private readonly nc: NatsConnection,
    /** This bridge's transfer subject (`<cluster>.transfer.<bridge>`). */
    private readonly subject: string,
    private readonly limits: Pick<Limits, "clusterChunkBytes" | "clusterTransferTtlMs" | "clusterMaxTransferBytes">,
  ) {}

  /** The most bytes one NATS message may carry here: the chunk size, below the server's `max_payload`. */
  get messageBytes(): number {
    const server = this.nc.info?.max_payload ?? this.limits.clusterChunkBytes;
    // Room for NATS's own headers.
    return Math.max(1024, Math.min(this.limits.clusterChunkBytes, server - 4096));
  }

  /** Answers other bridges' chunk requests for what this one holds. */
  start(): void {
    this.sub = this.nc.subscribe(this.subject, {
      callback: (_error, msg) => {
        const [id, offsetText] = new TextDecoder().decode(msg.data).split(" ");
        const held = this.held.get(id ?? "");
        const offset = Number(offsetText);
        if (held === undefined || !Number.isInteger(offset) || offset < 0 || offset >= held.bytes.byteLength) {
          msg.respond(new Uint8Array(0));
          return;
        }
        const chunk = held.bytes.subarray(offset, offset + held.chunk);
        msg.respond(chunk);
        held.pulled += chunk.byteLength;
        if (!held.shared && held.pulled >= held.bytes.byteLength) this.drop(id!);
      },
    });
  }

  /**
   * Holds `bytes` for another bridge to pull; dropped once pulled to its end, or (`shared`: for several bridges, an
   * event) only when its time is up. @throws BridgeError `PAYLOAD_TOO_LARGE` past `clusterMaxTransferBytes`.
   */
  offer(bytes: Uint8Array, { shared = false }: { shared?: boolean } = {}): TransferRef {
    const max = this.limits.clusterMaxTransferBytes;
    if (bytes.byteLength > max) {
      throw new BridgeError("PAYLOAD_TOO_LARGE", `A message of ${bytes.byteLength} bytes is over clusterMaxTransferBytes (${max}) between bridges`, {
        details: { limit: "clusterMaxTransferBytes", bytes: bytes.byteLength, maxBytes: max },
      });
    }
    const id = `t${this.next++}`;
    const timer = setTimeout(() => this.drop(id), this.limits.clusterTransferTtlMs);
    timer.unref();
    const chunk = this.messageBytes;
    this.held.set(id, { bytes, chunk, timer, pulled: 0, shared });
    return { subject: this.subject, id, size: bytes.byteLength, chunk };
  }

  /** Pulls a message another bridge holds. @throws BridgeError `HOST_UNAVAILABLE` when it is gone. */
  async fetch(ref: TransferRef, timeoutMs: number): Promise<Uint8Array> {
    const max = this.limits.clusterMaxTransferBytes;
    if (!Number.isInteger(ref.chunk) || ref.chunk < 1) throw new BridgeError("INTERNAL", "A message reference from another bridge names no chunk size");
    if (!Number.isInteger(ref.size) || ref.size < 0 || ref.size > max) {
      throw new BridgeError("PAYLOAD_TOO_LARGE", `A message of ${ref.size} bytes is over clusterMaxTransferBytes (${max}) between bridges`, {
        details: { limit: "clusterMaxTransferBytes", bytes: ref.size, maxBytes: max },
      });
    }
    const out = new Uint8Array(ref.size);
    let offset = 0;
    const pull = async (): Promise<void> => {
      while (offset < ref.size) {
        const at = offset;
        offset += ref.chunk;
        const reply = await this.nc.request(ref.subject, new TextEncoder().encode(`${ref.id} ${at}`), { timeout: timeoutMs }).catch((error: unknown) => {
          throw new BridgeError("HOST_UNAVAILABLE", `The bridge holding a message went away while it was pulled: ${String(error)}`, { retryable: true });
        });
        if (reply.data.byteLength === 0 || at + reply.data.byteLength > ref.size) {
          throw new BridgeError("HOST_UNAVAILABLE", "A message between bridges expired before it was pulled", { retryable: true });
        }
        out.set(reply.data, at);
      }
    };
    await Promise.all(Array.from({ length: CHUNKS_IN_FLIGHT }, pull));
    return out;
  }

  stop(): void {
    this.sub?.unsubscribe();
    for (const id of [...this.held.keys()]) this.drop(id);
  }

  private drop(id: string): void {
    const held = this.held.get(id);
    if (held === undefined) return;
    clearTimeout(held.timer);
    this.held.delete(id);
  }
}
