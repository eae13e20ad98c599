import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Runs the slowest test files first, by the seconds `test/timings.json` holds for each (written from a whole run's
 * report by `scripts/test-timings.mjs`), so the two workers end together instead of one running the docs walk
 * alone at the end. vitest's own order needs its results cache, which a fresh clone and CI do not have; without it
 * vitest runs the largest files first, and file size says little about time here. A file the timings do not know
 * (a new one) runs first, as vitest runs unknown files first.
 */
export class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = JSON.parse(readFileSync(new URL("../timings.json", import.meta.url), "utf8")) as Record<string, number>;
    const root = this.ctx.config.root;
    const time = (spec: TestSpecification): number => seconds[relative(root, spec.moduleId)] ?? Number.POSITIVE_INFINITY;
    return [...files].sort((a, b) => time(b) - time(a));
  }
}
