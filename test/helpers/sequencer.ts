import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Runs the files that need a worker of their own (those whose project isolates them) first, then the others
 * slowest first, by the seconds `test/timings.json` holds for each (written from a whole run's report by
 * `scripts/test-timings.mjs`), so the two workers end together instead of one running the docs walk alone at the
 * end. vitest's own order needs its results cache, which a fresh clone and CI do not have; without it vitest runs
 * the largest files first, and file size says little about time here. A file the timings do not know (a new one)
 * runs first in its group, as vitest runs unknown files first.
 *
 * Isolated files first: vitest keeps a shared worker for its next file only while the next file waiting is a
 * shared one too. An isolated file waiting among the shared ones ended a shared worker each time, and the next
 * shared file paid for a new worker that evaluated the bridge's modules again (28 worker processes in one run for
 * two workers' worth of shared files).
 */
export class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = JSON.parse(readFileSync(new URL("../timings.json", import.meta.url), "utf8")) as Record<string, number>;
    const root = this.ctx.config.root;
    const time = (spec: TestSpecification): number => seconds[relative(root, spec.moduleId)] ?? Number.POSITIVE_INFINITY;
    const shared = (spec: TestSpecification): number => (spec.project.config.isolate === false ? 1 : 0);
    return [...files].sort((a, b) => shared(a) - shared(b) || time(b) - time(a));
  }
}
