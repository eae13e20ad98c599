import { describe, expect, it } from "vitest";
import { describeExit, type ExitFacts } from "../../../src/hosts/isolated/spawn.js";

/** What Node prints for a fatal V8 out-of-memory, with V8's own reason in it. */
const v8Fatal = (reason: string): string =>
  `<--- Last few GCs --->\n\n[123:0x1]  1239 ms: Mark-Compact 383.7 (394.1) -> 383.7 (394.1) MB\n\n<--- JS stacktrace --->\n\nFATAL ERROR: ${reason} Allocation failed - JavaScript heap out of memory\n----- Native stack trace -----\n`;

const aborted = (stderrTail: string): ExitFacts => ({ code: null, signal: "SIGABRT", killedFor: undefined, stderrTail });

describe("the cause an editor process's end is reported with", () => {
  it("names the JavaScript heap for each way V8 says its own cap was met, however fast the machine", () => {
    // A loaded machine makes V8 give up on collections that take most of the time first ("ineffective"): the same
    // runaway heap, reported differently. All three are the heap's cap, not memory the system refused.
    for (const reason of ["Reached heap limit", "Ineffective mark-compacts near heap limit", "MarkCompactCollector: young object promotion failed"]) {
      expect(describeExit(aborted(v8Fatal(reason))), reason).toBe("editor ran out of memory (JavaScript heap limit; signal SIGABRT)");
    }
  });

  it("names a refused allocation when the system said no: V8 committing its young generation, or native code", () => {
    expect(describeExit(aborted(v8Fatal("Committing semi space failed.")))).toBe("editor ran out of memory (an allocation was refused; signal SIGABRT)");
    expect(describeExit(aborted("terminate called after throwing an instance of 'std::bad_alloc'\n"))).toBe(
      "editor ran out of memory (an allocation was refused; signal SIGABRT)",
    );
  });

  it("otherwise names the signal or the exit code, and the bridge's own reason comes first", () => {
    expect(describeExit(aborted(""))).toBe("editor crashed: signal SIGABRT");
    expect(describeExit({ code: null, signal: "SIGKILL", killedFor: undefined, stderrTail: "" })).toMatch(/^editor was killed from outside the bridge/);
    expect(describeExit({ code: 134, signal: null, killedFor: undefined, stderrTail: "" })).toBe("editor ran out of memory (exit code 134)");
    expect(describeExit({ code: 3, signal: null, killedFor: undefined, stderrTail: "" })).toBe("editor exited unexpectedly with exit code 3");
    expect(describeExit({ code: null, signal: "SIGKILL", killedFor: "stuck", stderrTail: v8Fatal("Reached heap limit") })).toBe("stuck");
  });
});
