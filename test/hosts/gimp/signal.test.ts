/**
 * `image-editor-bridge serve --editor gimp` stopped by SIGTERM before it has printed its startup line (a service
 * manager stopping it mid-start, or an orchestrator that only watched /ready) leaves no GIMP behind: the signal is
 * handled from the moment the bridge exists, not only once the banner is out.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { GIMP_BINARY, GIMP_SKIP } from "./_support.js";

const BIN = fileURLToPath(new URL("../../../bin/image-editor-bridge.js", import.meta.url));
/** How long GIMP may take to appear under the bridge, and to be gone after the bridge exits. */
const WAIT_MS = 60_000;
const POLL_MS = 25;

/** Pids whose parent is `parent` and whose command line mentions `name`. */
function childrenNamed(parent: number, name: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent && readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(name)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Whether `pid` is alive (a zombie counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3));
  } catch {
    return false;
  }
}

/** Resolves with `probe()`'s first defined answer, checked every POLL_MS; rejects after WAIT_MS. */
async function until<T>(what: string, probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const answer = probe();
    if (answer !== undefined) return answer;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

describe.skipIf(GIMP_SKIP !== undefined || process.platform !== "linux")("SIGTERM while a GIMP starts", () => {
  it("the bridge exits and its GIMP (with the whole process group) is gone", async () => {
    const child = spawn(process.execPath, [BIN, "serve", "--editor", "gimp", "--gimp-binary", GIMP_BINARY, "--listen", "127.0.0.1:0", "--log-level", "warn"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
    try {
      const [gimp] = await until("GIMP to start under the bridge", () => {
        const pids = childrenNamed(child.pid!, "gimp-console");
        return pids.length > 0 ? pids : undefined;
      });
      // GIMP is starting: the banner needs its Script-Fu server, which is seconds away.
      expect(stdout).not.toMatch(/editor: gimp/);
      child.kill("SIGTERM");
      const [code, signal] = await exited;
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      await until("GIMP to be gone", () => (alive(gimp!) ? undefined : true));
      expect(alive(gimp!)).toBe(false);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  }, 2 * WAIT_MS);
});
