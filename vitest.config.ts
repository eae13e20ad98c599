import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { SlowestFirst } from "./test/helpers/sequencer.js";

/**
 * Test files that need a worker process of their own, each for its reason below. A file that replaces a module
 * with `vi.mock` is one: a mock holds for the worker's whole module registry, and a module an earlier file of the
 * worker already loaded would keep the real one, so in a shared worker the mock would either miss or leak.
 */
export const ISOLATED_FILES = [
  // Wraps node:crypto's timingSafeEqual to see how the token check calls it.
  "test/reliability/token-compare.test.ts",
  // Hands out chosen ports to put a GIMP on a port another server holds.
  "test/hosts/gimp/pool.test.ts",
  // Measure an in-process editor's memory budget to the byte: the process's one segmentation model is charged to
  // every editor in it once any earlier file of the worker loaded it.
  "test/hosts/embedded/memory-budget.test.ts",
  "test/hosts/embedded/history.test.ts",
  "test/hosts/embedded/effects.test.ts",
];

/**
 * The suite's two projects: every file but `isolated` in workers that run file after file on one module registry
 * (`isolate: false`: the bridge's modules are evaluated once per worker, not once per file), and `isolated` each
 * in a new worker. Both take the rest of their settings from the root config.
 */
export function projects(include: string[], exclude: string[], isolated: string[]): TestProjectInlineConfiguration[] {
  const shared: TestProjectInlineConfiguration = {
    extends: true,
    test: { name: "shared", include, exclude: [...exclude, ...isolated], isolate: false },
  };
  if (isolated.length === 0) return [shared];
  return [shared, { extends: true, test: { name: "isolated", include: isolated, exclude, isolate: true } }];
}

export default defineConfig({
  test: {
    projects: projects(["test/**/*.test.ts"], ["**/node_modules/**"], ISOLATED_FILES),
    // Runs, again for every test file, the cleanups helper modules register (`test/helpers/cleanups.ts`): a hook at
    // a helper's top level would only run for the first file of a worker.
    setupFiles: ["test/helpers/per-file.ts"],
    // Generous: the first GIMP case of a worker starts GIMP (10 s on an idle 2-core machine, 20–45 s beside other
    // work). Tests wait on events, so the timeout only decides how long a broken test takes to fail.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll gives up after 1 s by default: on a loaded machine a browser page or a child process can take
    // longer to show what it will show. The test's own timeout bounds it instead, so no verdict hangs on speed.
    expect: { poll: { timeout: 55_000 } },
    // Two cores: two workers keep the suite fast without starving the servers under test.
    maxWorkers: 2,
    // The run's temp files on the memory file system where there is room (`test/helpers/temp-dir.ts`), first so
    // that everything after it writes there; then GIMPs started on request, each worker's kept for its next test
    // files (`test/helpers/gimp-broker.ts`).
    globalSetup: ["test/helpers/temp-dir.ts", "test/helpers/gimp-broker.ts"],
    // The slowest files first (`test/timings.json`), so the two workers end together.
    sequence: { sequencer: SlowestFirst },
  },
});
