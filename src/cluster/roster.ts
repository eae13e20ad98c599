import type { Logger } from "../logger.js";
import type { ClusterMember, ClusterStatus } from "./members.js";

/** A bridge that went away without leaving, kept visible for `clusterLostVisibleMs`. */
type LostBridge = ClusterStatus["lost"][number] & { /** Its last entry's `at`: the same entry read again is not a return. */ lastAt: number };

interface Peer {
  member: ClusterMember;
  /** When its entry was last read (this bridge's clock). */
  seenAt: number;
  /** When its entry last changed (this bridge's clock). */
  changedAt: number;
}

/**
 * The other bridges of the cluster as this one last read them from the members bucket, and those that went away:
 * a peer whose entry disappears shortly after it last wrote left on purpose; one whose entry expired, or that NATS
 * has no subscriber for, died, and its editors and documents are remembered as lost for a while.
 */
export class Roster {
  private peers = new Map<number, Peer>();
  private readonly lost = new Map<string, LostBridge>();

  constructor(
    /** `clusterMemberTtlMs`: how long an entry lives unless rewritten. */
    private readonly memberTtlMs: number,
    /** `clusterLostVisibleMs`: how long a lost bridge stays listed. */
    private readonly lostVisibleMs: number,
    private readonly log: Logger,
  ) {}

  /** Live peers' entries, forgetting those not read for longer than the members' time to live. */
  members(): ClusterMember[] {
    this.sweep();
    return [...this.peers.values()].map(({ member }) => member);
  }

  /** Bridges that went away, still within `clusterLostVisibleMs`. */
  lostBridges(): ClusterStatus["lost"] {
    this.sweep();
    return [...this.lost.values()].map(({ bridge, at, editors, documents }) => ({ bridge, at, editors, documents }));
  }

  has(bridge: string): boolean {
    return this.members().some((member) => member.bridge === bridge);
  }

  /** Everyone else's entries as just read from the bucket: who is new, who changed, who left, who died. */
  update(entries: Iterable<ClusterMember>): void {
    const seen = new Map<number, Peer>();
    for (const member of entries) {
      // Marked gone: its entry stays until it expires; back only once it writes a new one. An entry written before
      // it was marked gone is not new either: the bridge may have beaten once more between this bridge's last read
      // and its death, and that entry must not bring back a dead bridge's editors for a whole time to live.
      const lost = this.lost.get(member.bridge);
      if (lost !== undefined && (lost.lastAt === member.at || member.at <= lost.at)) continue;
      this.lost.delete(member.bridge);
      const before = this.peers.get(member.slot);
      const now = Date.now();
      seen.set(member.slot, { member, seenAt: now, changedAt: before?.member.bridge === member.bridge && before.member.at === member.at ? before.changedAt : now });
    }
    // Entries gone since the last read: deleted by a bridge that left (written moments before), or expired (its
    // bridge died or lost NATS: nothing written for the time to live).
    for (const [slot, peer] of this.peers) {
      if (seen.has(slot) || this.lost.has(peer.member.bridge)) continue;
      if (Date.now() - peer.changedAt < this.memberTtlMs) this.log.info({ bridge: peer.member.bridge }, "a bridge left the cluster");
      else this.goneAway(slot);
    }
    this.peers = seen;
  }

  /** A bridge NATS has no subscriber for (it died): gone now, not at the end of its time to live. */
  noResponders(bridge: string): void {
    for (const [slot, peer] of this.peers) if (peer.member.bridge === bridge) this.goneAway(slot);
  }

  /** Forgets peers not read for longer than the members' time to live (what the bucket would have dropped). */
  private sweep(): void {
    const now = Date.now();
    for (const [slot, peer] of this.peers) if (peer.seenAt < now - this.memberTtlMs) this.goneAway(slot);
    for (const [bridge, lost] of this.lost) if (lost.at < now - this.lostVisibleMs) this.lost.delete(bridge);
  }

  /** A peer vanished without leaving: forgotten, and remembered as lost for a while. */
  private goneAway(slot: number): void {
    const peer = this.peers.get(slot);
    if (peer === undefined) return;
    this.peers.delete(slot);
    const { bridge, editors } = peer.member;
    const documents = editors.reduce((n, e) => n + e.documents, 0);
    this.lost.set(bridge, { bridge, at: Date.now(), editors: editors.map((e) => e.id), documents, lastAt: peer.member.at });
    this.log.warn({ bridge, editors: editors.map((e) => e.id) }, "a bridge of the cluster went away; its editors and documents are gone");
  }
}
