import { describe, expect, it } from "vitest";
import { Mailbox, type MailboxJob } from "../../../src/actors/editors/mailbox.js";

/** A mailbox on a clock the test moves, and jobs named `<lane><n>`. */
function mailbox(halfLifeMs = Infinity) {
  const clock = { now: 0 };
  const box = new Mailbox<MailboxJob & { name: string }>(halfLifeMs, () => clock.now);
  const put = (lane: string, count = 1) => {
    for (let i = 0; i < count; i++) box.enqueue({ lane, queued: false, name: `${lane}${box.laneDepth(lane) + 1}` });
  };
  /** Takes every job; each "runs" for `ms(lane)` of the clock and is charged to its lane. */
  const runAll = (ms: (lane: string) => number = () => 0) => {
    const order: string[] = [];
    for (let job = box.take(); job !== undefined; job = box.take()) {
      order.push(job.lane);
      clock.now += ms(job.lane);
      box.charge(job.lane, ms(job.lane));
    }
    return order.join("");
  };
  return { box, clock, put, runAll };
}

describe("the mailbox's order across lanes", () => {
  it("lanes that used the editor equally take turns, FIFO within each", () => {
    const { box, put } = mailbox();
    put("a", 3);
    put("b", 3);
    const names: string[] = [];
    for (let job = box.take(); job !== undefined; job = box.take()) names.push(job.name);
    expect(names).toEqual(["a1", "b1", "a2", "b2", "a3", "b3"]);
  });

  it("a lane whose calls hold the editor long waits until the others have used as much", () => {
    const { put, runAll } = mailbox();
    put("h", 3);
    put("x", 12);
    put("y", 12);
    // h's calls take 100 ms, the others' 10 ms: taking turns, h would have a third of the calls and most of the time.
    const order = runAll((lane) => (lane === "h" ? 100 : 10));
    // After h's first call, x and y run until each has used its 100 ms too (ten calls each), then all three are level.
    expect(order.slice(0, 21)).toMatch(/^h[xy]{20}$/);
    expect(order.slice(21, 24)).toBe("hxy");
    expect(order).toHaveLength(27);
  });

  it("a heavy lane's time fades with the half-life, letting it back in", () => {
    const { box, clock, put } = mailbox(1_000);
    put("h");
    put("l");
    expect(box.take()!.lane).toBe("h");
    box.charge("h", 400);
    put("h");
    box.charge("l", 10);
    // l used 10 ms against h's 400 ms: l first.
    expect(box.peek()!.lane).toBe("l");
    clock.now += 1_000;
    expect(box.used("h")).toBeCloseTo(200, 5);
    expect(box.used("l")).toBeCloseTo(5, 5);
    expect(box.take()!.lane).toBe("l");
    expect(box.take()!.lane).toBe("h");
    expect(box.take()).toBeUndefined();
  });

  it("a job the caller turns down stays first, and nothing behind it is taken instead", () => {
    const { box, put } = mailbox();
    put("a");
    put("b");
    expect(box.take(() => false)).toBeUndefined();
    expect(box.depth).toBe(2);
    expect(box.take((job) => job.lane === "a")!.name).toBe("a1");
    expect(box.take()!.name).toBe("b1");
  });

  it("a lane that starts waiting starts at the least-used waiting lane's time, not below it", () => {
    const { box, put } = mailbox();
    put("a", 2);
    put("b", 2);
    box.charge("a", 50);
    box.charge("b", 30);
    // A newcomer that never used the editor is put level with b, the least-used lane waiting, and after it.
    put("n", 2);
    expect(box.used("n")).toBe(30);
    expect(box.take()!.lane).toBe("b");
    expect(box.take()!.lane).toBe("n");
    // b and n both still used 30 ms and a 50 ms: b and n take their turns before a.
    expect(box.take()!.lane).toBe("b");
    expect(box.take()!.lane).toBe("n");
    expect(box.take()!.lane).toBe("a");
  });

  it("a lane that used less than the least-used waiting lane keeps its lead only up to that lane", () => {
    const { box, put } = mailbox();
    put("a");
    box.charge("a", 80);
    box.charge("quiet", 20);
    put("quiet");
    expect(box.used("quiet")).toBe(80);
    expect(box.take()!.lane).toBe("a");
  });

  it("forgets lanes whose time has faded as more lanes come, and never a waiting lane's", () => {
    const { box, clock, put } = mailbox(100);
    put("waiting");
    box.charge("waiting", 1);
    for (let i = 0; i < 100; i++) box.charge(`gone${i}`, 5);
    expect(box.lanesRemembered).toBe(101);
    clock.now += 10_000;
    // Lanes keep coming: by the time twice as many are remembered as at the last sweep, the faded ones are gone.
    for (let i = 0; i < 200 && box.lanesRemembered > 100; i++) box.charge(`new${i}`, 5);
    expect(box.lanesRemembered).toBeLessThan(100);
    expect(box.used("gone0")).toBe(0);
    expect(box.take()!.lane).toBe("waiting");
  });
});
