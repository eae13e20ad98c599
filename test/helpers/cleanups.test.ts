import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, type RunnerTask } from "vitest";
import { ISOLATED_FILES } from "../../vitest.config.js";
import { outcomeOf } from "./cleanups.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function typescriptFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "fixtures" ? [] : typescriptFiles(path);
    return path.endsWith(".ts") && !path.endsWith(".d.ts") ? [relative(ROOT, path)] : [];
  });
}

const files = typescriptFiles(join(ROOT, "test"));

/*
 * What keeps test files that share a worker (`isolate: false`, `vitest.config.ts`) from changing each other's
 * verdicts; how it works is in docs/testing.md, "Keeping the suite fast".
 */
describe("test files sharing a worker", () => {
  it("no helper module registers a vitest hook at its top level: it would run for the worker's first file only", () => {
    const helpers = files.filter((file) => !file.endsWith(".test.ts") && file !== "test/helpers/per-file.ts");
    const hooks = helpers.flatMap((file) =>
      (readFileSync(join(ROOT, file), "utf8").match(/^(afterEach|afterAll|beforeEach|beforeAll)\(/gm) ?? []).map((hook) => `${file}: ${hook}`),
    );
    expect(helpers.length).toBeGreaterThan(10);
    expect(hooks).toEqual([]);
  });

  it("every file that replaces a module with vi.mock runs in a worker of its own", () => {
    const mocking = files.filter((file) => /\bvi\.(do)?[mM]ock\(/.test(readFileSync(join(ROOT, file), "utf8")));
    expect(mocking).toContain("test/reliability/token-compare.test.ts");
    expect(mocking.filter((file) => !ISOLATED_FILES.includes(file))).toEqual([]);
  });
});

describe("a test file's outcome, which decides whether the worker's editor process is kept for its next file", () => {
  const task = (state: "pass" | "fail" | "skip" | undefined, tasks?: unknown[]): RunnerTask =>
    ({ type: tasks === undefined ? "test" : "suite", result: state === undefined ? undefined : { state }, ...(tasks === undefined ? {} : { tasks }) }) as unknown as RunnerTask;

  it("is failed when a test deep inside it failed, though its suites are still running", () => {
    expect(outcomeOf(task(undefined, [task("pass"), task(undefined, [task("skip"), task("fail")])]))).toEqual({ failed: true });
  });

  it("is failed when a hook failed the file itself or a suite, and not failed when every test passed or was skipped", () => {
    expect(outcomeOf(task("fail", [task("pass")]))).toEqual({ failed: true });
    expect(outcomeOf(task(undefined, [task("fail", [])]))).toEqual({ failed: true });
    expect(outcomeOf(task(undefined, [task("pass"), task(undefined, [task("skip"), task("pass")])]))).toEqual({ failed: false });
  });
});
