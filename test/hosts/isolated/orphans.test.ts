import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { eventually } from "../../helpers/gc.js";
import { isRunning, processState } from "./_support.js";

const BRIDGE_PROCESS = fileURLToPath(new URL("./fixtures/bridge-process.mjs", import.meta.url));

/** Starts a bridge-like process running an isolated editor; resolves with both pids once the editor is ready. */
async function startBridgeProcess(
  mode: "exit" | "stuck",
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ bridge: ReturnType<typeof spawn>; editorPid: number }> {
  const bridge = spawn(process.execPath, [BRIDGE_PROCESS, mode], { stdio: ["ignore", "pipe", "inherit"], env });
  let out = "";
  bridge.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  await once(bridge.stdout!, "data");
  return { bridge, editorPid: Number(out.trim()) };
}

describe("isolated embedded editor: no orphans", () => {
  it("the bridge process exiting takes its editor process with it", async () => {
    const { bridge, editorPid } = await startBridgeProcess("exit");
    expect(editorPid).toBeGreaterThan(0);
    await once(bridge, "exit");
    await eventually(() => !isRunning(editorPid), "the editor process to end");
  });

  it("the bridge process killed outright (no exit handler runs) takes even a stuck editor process with it", async () => {
    const { bridge, editorPid } = await startBridgeProcess("stuck");
    // Spinning on a CPU: it will never read its channel again, so only the kernel can end it.
    await eventually(() => processState(editorPid) === "R", "the editor to be stuck in its call");
    bridge.kill("SIGKILL");
    await once(bridge, "exit");
    await eventually(() => !isRunning(editorPid), "the editor process to end");
  });

  it("where the kernel cannot do it (no setpriv), the stuck editor's own watchdog thread ends it", async () => {
    const { bridge, editorPid } = await startBridgeProcess("stuck", { ...process.env, PATH: "/nonexistent" });
    await eventually(() => processState(editorPid) === "R", "the editor to be stuck in its call");
    bridge.kill("SIGKILL");
    await once(bridge, "exit");
    await eventually(() => !isRunning(editorPid), "the editor process to end");
  });
});
