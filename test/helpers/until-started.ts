import { once } from "node:events";
import type { ChildProcess } from "node:child_process";

/** The line `image-editor-bridge serve` prints once it listens. */
export const STARTUP_LINE = /^image-editor-bridge \S+ · .*\n/m;

/**
 * Collects a `serve` child's stdout and stderr until it exits; with `stopWhenStarted`, sends it SIGTERM once its
 * startup line appears. Once only: the bridge logs its shutdown to stdout too, and a second signal means "exit now"
 * (status 1), which a loaded machine, delivering that log before the exit, would otherwise bring about.
 */
export async function runToExit(child: ChildProcess, stopWhenStarted: boolean): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  let stopped = false;
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stopWhenStarted && !stopped && STARTUP_LINE.test(stdout)) {
      stopped = true;
      child.kill("SIGTERM");
    }
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stdout, stderr };
}
