import { pino } from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ChurnLog } from "../../../src/actors/clients/churn-log.js";

function collect(): { lines: Array<Record<string, unknown>>; log: ChurnLog } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { lines, log: new ChurnLog(logger, { connectionLogLines: 3, connectionLogIntervalMs: 1_000 }) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("ChurnLog", () => {
  it("one address churning is summarised once its interval ends, while another address's lines are still written", () => {
    vi.useFakeTimers();
    const { lines, log } = collect();
    for (let i = 0; i < 50; i++) {
      log.write("10.0.0.1", "connected", { actor: `client:${i}` }, "client connected");
      log.write("10.0.0.1", "closed", { actor: `client:${i}` }, "client socket closed");
    }
    log.write("10.0.0.2", "connected", { actor: "client:other" }, "client connected");
    expect(lines.filter((l) => l["address"] === "10.0.0.1")).toHaveLength(3);
    expect(lines.filter((l) => l["address"] === "10.0.0.2")).toHaveLength(1);
    // The summary comes when the interval is over, with no further line needed to bring it.
    vi.advanceTimersByTime(1_000);
    const summaries = lines.filter((l) => l["msg"] === "client connections summarised");
    expect(summaries).toEqual([expect.objectContaining({ address: "10.0.0.1", connected: 48, closed: 49, disposed: 0, limit: "connectionLogLines", max: 3 })]);
    // A new interval writes lines again; a quiet bridge keeps no timer.
    log.write("10.0.0.1", "disposed", { actor: "client:0" }, "client disposed");
    expect(lines.at(-1)).toMatchObject({ msg: "client disposed", address: "10.0.0.1" });
    vi.advanceTimersByTime(1_000);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("flush writes what is still counted (shutdown)", () => {
    const { lines, log } = collect();
    for (let i = 0; i < 10; i++) log.write("127.0.0.1", "disposed", {}, "client disposed");
    log.flush();
    expect(lines.at(-1)).toMatchObject({ msg: "client connections summarised", address: "127.0.0.1", disposed: 7 });
  });
});
