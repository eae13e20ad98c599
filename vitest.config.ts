import { defineConfig } from "vitest/config";
import { SlowestFirst } from "./test/helpers/sequencer.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Generous: the first GIMP case of a worker starts GIMP (10 s on an idle 2-core machine, 20–45 s beside other
    // work). Tests wait on events, so the timeout only decides how long a broken test takes to fail.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll gives up after 1 s by default: on a loaded machine a browser page or a child process can take
    // longer to show what it will show. The test's own timeout bounds it instead, so no verdict hangs on speed.
    expect: { poll: { timeout: 55_000 } },
    // Two cores: two workers keep the suite fast without starving the servers under test.
    maxWorkers: 2,
    // Starts GIMPs on request and keeps each worker's for its next test files (`test/helpers/gimp-broker.ts`).
    globalSetup: ["test/helpers/gimp-broker.ts"],
    // The slowest files first (`test/timings.json`), so the two workers end together.
    sequence: { sequencer: SlowestFirst },
  },
});
