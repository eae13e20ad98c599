import type { Server } from "node:http";
import type { Socket } from "node:net";
import type { Limits } from "../limits.js";
import { normalizeAddress } from "./connections.js";

/*
 * Inbound bytes in flight: WebSocket frames and HTTP bodies being received and not yet parsed, counted across the
 * whole bridge. Each frame or body is bounded on its own (`maxPayloadBytes`, `maxImportBodyBytes`), but sixteen
 * clients sending 90 MB at once would hold 1.4 GB. A large frame or body reserves its whole size before its bytes
 * are read; past `inboundBytesInFlight` (or its address's `inboundBytesPerAddress`) its socket stops being read
 * (TCP backpressure) until earlier ones are parsed and released. Below `inboundSmallBytes` nothing ever waits, so
 * ordinary calls and `/health` are untouched: small bytes are counted, never refused.
 *
 * Liveness: a reservation is all or nothing and made before any of its bytes are read, so nothing waits while
 * holding a part of what it waits for; whoever holds bytes is reading them and releases them when parsed (or when
 * its socket closes). A frame larger than the whole cap passes alone, when nothing else large is in flight, so
 * lowering a limit below `maxPayloadBytes` slows such frames down, never blocks them for good.
 */

/** A large frame's or body's claim on the budget; `granted` once its bytes may be read. */
export interface InboundTicket {
  readonly bytes: number;
  readonly owner: string;
  granted: boolean;
  /** Released or cancelled: gives nothing back twice. */
  done: boolean;
  /** Called once, when a waiting ticket is granted. */
  readonly onGrant: () => void;
}

/** What the budget holds now and has held, for the operator and for tests. */
export interface InboundCounts {
  /** Bytes held now: large reservations plus small frames and bodies being read. */
  bytes: number;
  /** Of `bytes`, what large frames and bodies reserved. */
  largeBytes: number;
  /** Most `bytes` held at once since the budget was made. */
  peakBytes: number;
  /** Large frames and bodies waiting for room now (their sockets are not read). */
  waiting: number;
  /** Large frames and bodies that had to wait, since the budget was made. */
  waited: number;
  max: number;
  perAddress: number;
  small: number;
}

/** One bridge's inbound bytes: reservations, the queue of those waiting, and counts. */
export class InboundBudget {
  readonly #limits: Limits;
  #large = 0;
  #small = 0;
  #peak = 0;
  #waited = 0;
  readonly #byOwner = new Map<string, number>();
  /** Waiting tickets, oldest first. */
  #queue: InboundTicket[] = [];

  constructor(limits: Limits) {
    this.#limits = limits;
  }

  /** Size below which a frame or body never waits (`inboundSmallBytes`). */
  get smallBytes(): number {
    return this.#limits.inboundSmallBytes;
  }

  /** Counts bytes of a small frame or body being read: never refused, never waits. */
  charge(bytes: number): void {
    this.#small += bytes;
    this.#notePeak();
  }

  /** Gives back what `charge` counted, once the frame or body is parsed. */
  discharge(bytes: number): void {
    this.#small -= bytes;
  }

  /**
   * Reserves `bytes` for `owner` (a remote address): granted at once when it fits and nobody waits before it, else
   * queued, and `onGrant` runs when it is granted. Release it (granted or not) once its bytes are parsed.
   */
  reserve(owner: string, bytes: number, onGrant: () => void): InboundTicket {
    const ticket: InboundTicket = { bytes, owner, granted: false, done: false, onGrant };
    // Ahead of those waiting for the total, never; ahead of those waiting only for their own address's share, yes.
    if (this.#fits(ticket) === "yes" && !this.#queue.some((t) => this.#fits(t) === "total")) {
      this.#grant(ticket);
      return ticket;
    }
    this.#queue.push(ticket);
    this.#waited++;
    return ticket;
  }

  /** Gives a granted ticket's bytes back, or takes a waiting one out of the queue; then admits who now fits. */
  release(ticket: InboundTicket): void {
    if (ticket.done) return;
    ticket.done = true;
    if (ticket.granted) {
      this.#large -= ticket.bytes;
      const left = (this.#byOwner.get(ticket.owner) ?? 0) - ticket.bytes;
      if (left > 0) this.#byOwner.set(ticket.owner, left);
      else this.#byOwner.delete(ticket.owner);
    } else {
      this.#queue = this.#queue.filter((t) => t !== ticket);
    }
    this.#admit();
  }

  counts(): InboundCounts {
    return {
      bytes: this.#large + this.#small,
      largeBytes: this.#large,
      peakBytes: this.#peak,
      waiting: this.#queue.length,
      waited: this.#waited,
      max: this.#limits.inboundBytesInFlight,
      perAddress: this.#limits.inboundBytesPerAddress,
      small: this.#limits.inboundSmallBytes,
    };
  }

  /**
   * Whether a ticket fits now: "total" when the bridge-wide cap stops it, "owner" when its address's share does.
   * Holding nothing large, the bridge (or the address) admits any one ticket, so a frame above a cap still passes.
   */
  #fits(ticket: InboundTicket): "yes" | "total" | "owner" {
    const held = this.#large + this.#small;
    if (this.#large > 0 && held + ticket.bytes > this.#limits.inboundBytesInFlight) return "total";
    const owner = this.#byOwner.get(ticket.owner) ?? 0;
    if (owner > 0 && owner + ticket.bytes > this.#limits.inboundBytesPerAddress) return "owner";
    return "yes";
  }

  #grant(ticket: InboundTicket): void {
    ticket.granted = true;
    this.#large += ticket.bytes;
    this.#byOwner.set(ticket.owner, (this.#byOwner.get(ticket.owner) ?? 0) + ticket.bytes);
    this.#notePeak();
  }

  /**
   * Grants waiting tickets in order. One stopped by the total stops the scan (later, smaller ones must not starve
   * it); one stopped only by its own address's share is passed over, so one address cannot hold up the others.
   */
  #admit(): void {
    const granted: InboundTicket[] = [];
    const still: InboundTicket[] = [];
    let blocked = false;
    for (const ticket of this.#queue) {
      const fits = blocked ? "total" : this.#fits(ticket);
      if (fits === "yes") {
        this.#grant(ticket);
        granted.push(ticket);
      } else {
        if (fits === "total") blocked = true;
        still.push(ticket);
      }
    }
    this.#queue = still;
    for (const ticket of granted) ticket.onGrant();
  }

  #notePeak(): void {
    const held = this.#large + this.#small;
    if (held > this.#peak) this.#peak = held;
  }
}

const byLimits = new WeakMap<Limits, InboundBudget>();
const bySocket = new WeakMap<Socket, InboundBudget>();
const byServer = new WeakMap<Server, InboundBudget>();

/**
 * The inbound budget of the bridge listening on `server` (made on first call): its WebSocket frames and the HTTP
 * bodies of every socket the server accepts from then on draw from it. `limits` is the bridge's own object.
 */
export function inboundBudgetFor(server: Server, limits: Limits): InboundBudget {
  const known = byServer.get(server);
  if (known !== undefined) return known;
  const budget = new InboundBudget(limits);
  byServer.set(server, budget);
  byLimits.set(limits, budget);
  server.on("connection", (socket: Socket) => bySocket.set(socket, budget));
  return budget;
}

/** The budget a socket's bytes draw from, if its server has one. */
export function inboundBudgetOfSocket(socket: Socket): InboundBudget | undefined {
  return bySocket.get(socket);
}

/**
 * What the inbound budget of the bridge with these limits (`bridge.limits`) holds and has held; undefined before
 * the bridge listens.
 */
export function inboundCounts(limits: Limits): InboundCounts | undefined {
  return byLimits.get(limits)?.counts();
}

/** Who a socket's bytes are counted against: its remote address. */
export function inboundOwner(socket: { readonly remoteAddress?: string | undefined }): string {
  return normalizeAddress(socket.remoteAddress ?? "unknown");
}
