import { describe, expect, it } from "vitest";
import type { ClusterMember } from "../../src/cluster/members.js";
import { Roster } from "../../src/cluster/roster.js";
import { silentLogger } from "../../src/logger.js";

const member = (bridge: string, at: number): ClusterMember => ({
  bridge,
  slot: 1,
  version: "test",
  editors: [{ id: `embedded-1@${bridge}`, kind: "embedded", state: "ready", documents: 1 } as ClusterMember["editors"][number]],
  at,
});

describe("the cluster roster", () => {
  it("a bridge found dead stays gone when an entry it wrote before dying is read afterwards", () => {
    const roster = new Roster(60_000, 60_000, silentLogger());
    const written = Date.now();
    roster.update([member("a", written - 100)]);
    expect(roster.has("a")).toBe(true);
    // It beat once more, then died; this bridge had not read that beat when NATS said nobody answers.
    roster.noResponders("a");
    expect(roster.has("a")).toBe(false);
    roster.update([member("a", written)]);
    expect(roster.has("a")).toBe(false);
    expect(roster.lostBridges().map((lost) => lost.bridge)).toEqual(["a"]);
    // An entry written after it was found gone is a return.
    roster.update([member("a", Date.now() + 1_000)]);
    expect(roster.has("a")).toBe(true);
    expect(roster.lostBridges()).toEqual([]);
  });
});
