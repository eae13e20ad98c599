import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DEPLOY = join(ROOT, "deploy");
const COMMAND = "node bin/image-editor-bridge.js serve";
const run = promisify(execFile);

/** What these machines cannot run: a Docker engine. The Dockerfile is checked for form and its command run here. */
function dockerInstructions(text: string): Array<{ op: string; args: string }> {
  return text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => ({ op: line.split(/\s+/)[0]!.toUpperCase(), args: line.slice(line.indexOf(" ") + 1).trim() }));
}

/** `KEY=value` pairs of the runtime stage's ENV lines. */
function runtimeEnv(instructions: Array<{ op: string; args: string }>): Record<string, string> {
  const env: Record<string, string> = {};
  let stage = "";
  for (const { op, args } of instructions) {
    if (op === "FROM") stage = args.split(/\s+AS\s+/i)[1] ?? "";
    if (op === "ENV" && stage === "runtime") for (const [, key, value] of args.matchAll(/(\w+)=(\S+)/g)) env[key!] = value!;
  }
  return env;
}

/** Starts the service's command line with `env` only (plus PATH), in the repository, and resolves with its URL. */
async function startService(env: Record<string, string>): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, COMMAND.split(" ").slice(1), { cwd: ROOT, env: { PATH: process.env["PATH"] ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      out += String(chunk);
      const found = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (found !== null) resolve(found[0]);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`the service exited with ${code}: ${out}`)));
  });
  const stop = async (): Promise<void> => {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  };
  return { url, stop };
}

/** Pids of processes whose environment carries `marker` (a bridge and its editor processes inherit it). */
async function processesMarked(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = await readFile(`/proc/${entry}/environ`, "utf8").catch(() => "");
    if (environ.split("\0").includes(marker)) pids.push(Number(entry));
  }
  return pids;
}

describe("the service recipes in deploy/", () => {
  it("the Dockerfile copies only what the build context has and runs the documented command", async () => {
    const instructions = dockerInstructions(await readFile(join(DEPLOY, "Dockerfile"), "utf8"));
    const from = instructions.filter((i) => i.op === "FROM").map((i) => i.args);
    expect(from[0]).toMatch(/^node:20-[a-z]+-slim AS build$/);
    for (const { args } of instructions.filter((i) => i.op === "COPY" && !i.args.startsWith("--from"))) {
      const sources = args.split(/\s+/).slice(0, -1);
      for (const source of sources) expect(existsSync(join(ROOT, source)), `${source} is in the build context`).toBe(true);
    }
    const ignored = (await readFile(join(ROOT, ".dockerignore"), "utf8")).split("\n").filter(Boolean);
    expect(ignored).toEqual(expect.arrayContaining(["node_modules", "dist"]));
    const cmd = instructions.filter((i) => i.op === "CMD").map((i) => (JSON.parse(i.args) as string[]).join(" "));
    expect(cmd).toEqual([COMMAND]);
    expect(runtimeEnv(instructions)).toMatchObject({ BRIDGE_LISTEN: "0.0.0.0:7700", BRIDGE_FILES_ROOT: "/data" });
  });

  it("the container's command line starts from the environment alone (listen address changed to loopback here)", async () => {
    const data = await mkdtemp(join(tmpdir(), "service-data-"));
    const env = { ...runtimeEnv(dockerInstructions(await readFile(join(DEPLOY, "Dockerfile"), "utf8"))), BRIDGE_LISTEN: "127.0.0.1:0", BRIDGE_FILES_ROOT: data, BRIDGE_TOKEN: "service-token", BRIDGE_LOG_LEVEL: "warn" };
    const service = await startService(env);
    try {
      const status = await fetch(`${service.url}/status`, { headers: { authorization: "Bearer service-token" } });
      expect(status.status).toBe(200);
      expect(((await status.json()) as { files: { roots: string[] } }).files.roots).toHaveLength(1);
    } finally {
      await service.stop();
      await rm(data, { recursive: true, force: true });
    }
  });

  it("the systemd unit runs the same command and passes systemd-analyze verify where it exists", async () => {
    const unit = await readFile(join(DEPLOY, "image-editor-bridge.service"), "utf8");
    expect(/^ExecStart=\/usr\/bin\/(.+)$/m.exec(unit)?.[1]).toBe(COMMAND);
    expect(unit).toMatch(/^KillMode=control-group$/m);
    const env = await readFile(join(DEPLOY, "image-editor-bridge.env"), "utf8");
    expect(env).toMatch(/^BRIDGE_TOKEN=/m);
    const analyze = await run("systemd-analyze", ["--version"]).then(() => true, () => false);
    if (!analyze) return; // not installed here: the unit was checked for form above
    const dir = await mkdtemp(join(tmpdir(), "unit-"));
    try {
      // Verified as a user would install it, with the paths it names present in the copy.
      const copy = unit.replace("/usr/bin/node", process.execPath).replace(/^User=.*$/m, "").replace(/^EnvironmentFile=.*$/m, "").replace("/opt/image-editor-bridge", ROOT);
      await writeFile(join(dir, "image-editor-bridge.service"), copy);
      const result = await run("systemd-analyze", ["verify", "--man=no", join(dir, "image-editor-bridge.service")]).then(
        ({ stderr }) => stderr,
        (error: { stderr?: string }) => `failed: ${error.stderr ?? ""}`,
      );
      // Messages about the environment of this machine (no systemd as init) are not about the unit.
      const problems = result.split("\n").filter((line) => line.includes("image-editor-bridge.service") && !/Failed to|System has not been booted|Cannot/.test(line));
      expect(problems).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("SIGTERM to npm start leaves no editor process behind", async () => {
    const marker = `BRIDGE_TEST_MARKER=${process.pid}-${Date.now()}`;
    const [key, value] = marker.split("=") as [string, string];
    // --ignore-scripts skips only the prestart build (npm test built already; rebuilding dist here would race the
    // other test files that start editor processes from it); the start script itself runs as documented.
    const child = spawn("npm", ["start", "--ignore-scripts", "--", "--listen", "127.0.0.1:0", "--log-level", "warn"], { cwd: ROOT, env: { ...process.env, [key]: value }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        out += String(chunk);
        if (/http:\/\/127\.0\.0\.1:\d+/.test(out)) resolve();
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      child.once("exit", (code) => reject(new Error(`npm start exited with ${code}: ${out}`)));
    });
    expect((await processesMarked(marker)).length).toBeGreaterThanOrEqual(2); // the bridge and its editor
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
    // The bridge stops its editor as it closes; the kernel's parent-death signal covers a bridge that died first.
    // Processes that are not our children give no exit event: their entries in /proc are watched instead.
    for (;;) {
      const left = await processesMarked(marker);
      if (left.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await processesMarked(marker)).toEqual([]);
  }, 120_000);
});
