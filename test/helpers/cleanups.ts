import type { RunnerTask } from "vitest";

/*
 * What helper modules clean up after each test and after each test file.
 *
 * The suite runs with vitest's `isolate: false`: a worker evaluates a helper module once and keeps it for every file
 * it runs after. A hook a helper registered at its top level (`afterEach(...)` beside its imports) would belong to
 * the first file that imported the helper, and never run for the next ones. Helpers register their cleanups here
 * instead; `test/helpers/per-file.ts`, a setup file (vitest evaluates those again for every test file), runs them
 * after each test and after each file.
 */

type Cleanup = () => unknown;

/** How the test file that just ended went, for cleanups that keep something for the next file. */
export interface FileOutcome {
  /** Whether a test or hook of the file failed (a case that timed out may have left work running). */
  readonly failed: boolean;
}

type FileCleanup = (outcome: FileOutcome) => unknown;

/** How `file` went so far: failed when it, or any suite, test or hook inside it, has. */
export function outcomeOf(file: Readonly<RunnerTask>): FileOutcome {
  return { failed: failedWithin(file) };
}

function failedWithin(task: Readonly<RunnerTask>): boolean {
  return task.result?.state === "fail" || ("tasks" in task && task.tasks.some(failedWithin));
}

const afterTest: Cleanup[] = [];
const afterFile: FileCleanup[] = [];

/** Runs `cleanup` after every test of every file, from now on (register once, at a helper's top level). */
export function afterEachTest(cleanup: Cleanup): void {
  afterTest.push(cleanup);
}

/** Runs `cleanup` after every test file, from now on (register once, at a helper's top level). */
export function afterEachFile(cleanup: FileCleanup): void {
  afterFile.push(cleanup);
}

/** The cleanups due after a test, the last registered first (as vitest runs after-hooks), every one even if one fails. */
export function runAfterTest(): Promise<void> {
  return runAll(afterTest);
}

/** The cleanups due after a test file, in the same way, each told how the file went. */
export function runAfterFile(outcome: FileOutcome): Promise<void> {
  return runAll(afterFile, outcome);
}

async function runAll(cleanups: readonly FileCleanup[], outcome: FileOutcome = { failed: false }): Promise<void> {
  const errors: unknown[] = [];
  for (const cleanup of [...cleanups].reverse()) {
    try {
      await cleanup(outcome);
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} cleanups failed`);
}
