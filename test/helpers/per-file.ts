import { afterAll, afterEach } from "vitest";
import { outcomeOf, runAfterFile, runAfterTest } from "./cleanups.js";

/*
 * vitest's setup file (`setupFiles`), evaluated again before every test file, also when files share a worker
 * (`isolate: false`): it runs the helpers' cleanups (`test/helpers/cleanups.ts`) after each test and each file, and
 * leaves the worker as the file found it for the next one.
 */

/** The environment as the file found it: a file that sets a variable must not change what the next one runs with. */
const environment = { ...process.env };

/** Signals that end a worker: a listener left on them would keep vitest's SIGTERM from stopping the worker. */
const SIGNALS = ["SIGINT", "SIGTERM"] as const;
const signalListeners = SIGNALS.map((signal) => process.listenerCount(signal));

afterEach(runAfterTest);

// vitest reads the hook's first parameter for the fixtures it asks for (an object pattern, none here); the file is
// the second.
// biome-ignore lint/correctness/noEmptyPattern: the pattern is how vitest knows no fixture is asked for
afterAll(async ({}, file) => {
  await runAfterFile(outcomeOf(file));
  for (const name of Object.keys(process.env)) if (!(name in environment)) delete process.env[name];
  Object.assign(process.env, environment);
  const left = SIGNALS.filter((signal, i) => process.listenerCount(signal) > signalListeners[i]!);
  if (left.length > 0) throw new Error(`the file left ${left.join(" and ")} listeners on the worker's process`);
});
