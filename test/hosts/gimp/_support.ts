import { existsSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { inject } from "vitest";
import { GimpSupervisor } from "../../../src/hosts/gimp/index.js";
import type { Endpoint } from "../../../src/hosts/gimp/index.js";
import { afterEachFile } from "../../helpers/cleanups.js";

/** The GIMP console binary the GIMP suites use (`BRIDGE_GIMP_BINARY` overrides). */
export const GIMP_BINARY = process.env["BRIDGE_GIMP_BINARY"] || "gimp-console-2.10";

function onPath(binary: string): boolean {
  if (isAbsolute(binary)) return existsSync(binary);
  return (process.env["PATH"] ?? "").split(delimiter).some((dir) => dir !== "" && existsSync(join(dir, binary)));
}

/**
 * Why the GIMP suites skip here, or undefined when GIMP is installed. With `REQUIRE_GIMP=1` (CI) a missing GIMP
 * is an error instead: every file of a GIMP suite fails rather than passing with nothing run.
 */
export const GIMP_SKIP: string | undefined = onPath(GIMP_BINARY) ? undefined : `${GIMP_BINARY} is not installed (apt-get install gimp)`;
if (GIMP_SKIP !== undefined) {
  if (process.env["REQUIRE_GIMP"] === "1") throw new Error(`REQUIRE_GIMP=1 but the GIMP suites cannot run: ${GIMP_SKIP}`);
  console.warn(`GIMP tests skipped: ${GIMP_SKIP}`);
}

const shared: Array<GimpSupervisor | undefined> = [];
const starting: Array<Promise<Endpoint> | undefined> = [];

/** The run's GIMP broker (`test/helpers/gimp-broker.ts`, vitest's global setup), when the config has it. */
const BROKER = inject("gimpBroker");

/**
 * One GIMP per vitest worker and `index`, started on first use (a start costs seconds) and kept for the worker's
 * next test files by the run's GIMP broker; without the broker (a config without its global setup), one per test
 * file, stopped after the file. Bridges reach it with `attach`, so closing a bridge leaves it running for the next
 * test, and a bridge's connect with `sample` closes whatever images the previous file left. Index 1 is a second
 * GIMP for pools of two.
 */
export async function sharedGimp(index = 0): Promise<Endpoint> {
  if (BROKER !== undefined) {
    const response = await fetch(`${BROKER}/gimp?key=${process.env["VITEST_POOL_ID"] ?? "0"}-${index}`);
    if (!response.ok) throw new Error(`the GIMP broker could not start GIMP ${index}: ${await response.text()}`);
    return (await response.json()) as Endpoint;
  }
  shared[index] ??= new GimpSupervisor({ binary: GIMP_BINARY });
  const supervisor = shared[index];
  starting[index] ??= supervisor.start().finally(() => {
    starting[index] = undefined;
  });
  return starting[index]!;
}

/** `host:port` of a shared GIMP, for `createGimpHost({ attach })`. */
export async function sharedGimpAttach(index = 0): Promise<string> {
  const { host, port } = await sharedGimp(index);
  return `${host}:${port}`;
}

afterEachFile(async () => {
  await Promise.all(shared.map((supervisor) => supervisor?.stop()));
  shared.length = 0;
});
