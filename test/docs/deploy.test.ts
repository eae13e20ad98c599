import { execFile, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { hostPath, parseDockerfile, type ReplayedStage, replay, stagesFor } from "../helpers/dockerfile.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DEPLOY = join(ROOT, "deploy");
const COMMAND = "node bin/image-editor-bridge.js serve";
const run = promisify(execFile);

/** Starts `argv` (a CMD: `node` is this Node) in `cwd` with `env` only (plus PATH), and resolves with its URL. */
async function startService(argv: readonly string[], cwd: string, env: Record<string, string>): Promise<{ url: string; stop: () => Promise<void> }> {
  const [command, ...args] = argv;
  const child = spawn(command === "node" ? process.execPath : command!, args, { cwd, env: { PATH: process.env["PATH"] ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
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
    if (child.exitCode !== null || child.signalCode !== null) return;
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

describe("the Dockerfile, replayed with plain processes (no Docker engine runs here)", () => {
  const stages = parseDockerfile(readFileSync(join(DEPLOY, "Dockerfile"), "utf8"));
  const byName = new Map(stages.map((s) => [s.name, s]));
  let scratch: string | undefined;
  let replayed: Map<string, ReplayedStage> | undefined;

  afterAll(async () => {
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  it("builds the embedded editor by default (the last stage), GIMP with --target gimp, both from node:20 slim", () => {
    expect(stages[0]).toMatchObject({ name: "build", from: expect.stringMatching(/^node:20-[a-z]+-slim$/) });
    const last = stages.at(-1)!;
    expect(last).toMatchObject({ name: "runtime", instructions: [] });
    const chain = stagesFor(stages, "runtime").map((s) => s.name);
    expect(chain).not.toContain("gimp");
    expect(stagesFor(stages, "gimp").map((s) => s.name)).toEqual(expect.arrayContaining(chain.filter((n) => n !== "runtime")));
    const gimp = byName.get("gimp")!.instructions;
    expect(gimp.find((i) => i.op === "RUN")?.args).toMatch(/apt-get install .*\bgimp\b/);
    expect(gimp.filter((i) => i.op === "ENV").map((i) => i.args)).toContain("BRIDGE_EDITOR=gimp");
    const ignored = readFileSync(join(ROOT, ".dockerignore"), "utf8").split("\n").filter(Boolean);
    expect(ignored).toEqual(expect.arrayContaining(["node_modules", "dist"]));
  });

  it("the build stage builds from exactly the files it copies, and the runtime stage gets what the bridge reads", async () => {
    scratch = await mkdtemp(join(tmpdir(), "docker-replay-"));
    // DEPLOY_NPM_CI=install runs each npm ci for real, offline from npm's cache (minutes); by default node_modules is
    // linked to the repository's own (CI's npm ci of the same lockfile) and the build stage runs the prepare script.
    const npmCi = process.env["DEPLOY_NPM_CI"] === "install" ? "install" : "link";
    replayed = await replay(stagesFor(stages, "runtime"), { context: ROOT, scratch, npmCi });
    const build = replayed.get("build")!;
    for (const built of ["dist/index.js", "dist/cli/catalog.json", "dist/dashboard/index.html", "docs/api.md"]) {
      expect(existsSync(hostPath(build, built)), `the build stage made ${built}`).toBe(true);
    }
    const runtime = replayed.get("runtime")!;
    for (const needed of ["dist/index.js", "bin/image-editor-bridge.js", "models/u2netp.onnx", "photoshop-plugin/main.cjs", "src/hosts/photoshop/jsx/_lib.jsx", ".npmrc"]) {
      expect(existsSync(hostPath(runtime, needed)), `the runtime stage has ${needed}`).toBe(true);
    }
    expect(existsSync(hostPath(runtime, "src/index.ts")), "no TypeScript sources in the runtime stage").toBe(false);
    expect([runtime.user, runtime.cmd?.join(" ")]).toEqual(["node", COMMAND]);
    expect(runtime.env).toMatchObject({ NODE_ENV: "production", BRIDGE_LISTEN: "0.0.0.0:7700", BRIDGE_FILES_ROOT: "/data" });
    // The build is about 20 s of CPU (112 s seen at load 17 on two cores); only a stuck one waits this out.
  }, 600_000);

  it("the runtime stage's command serves from what that stage copied: /health answers and a cutout runs the shipped model", async () => {
    const runtime = replayed?.get("runtime");
    expect(runtime, "the replay of the stages above").toBeDefined();
    // The container's environment, with its listen address on loopback here and /data where the stage made it.
    const env = { ...runtime!.env, BRIDGE_LISTEN: "127.0.0.1:0", BRIDGE_FILES_ROOT: hostPath(runtime!, runtime!.env["BRIDGE_FILES_ROOT"]!), BRIDGE_TOKEN: "service-token" };
    const service = await startService(runtime!.cmd!, hostPath(runtime!, "."), env);
    const auth = { authorization: "Bearer service-token" };
    try {
      const health = await fetch(`${service.url}/health`, { headers: auth });
      expect(health.status).toBe(200);
      const status = (await (await fetch(`${service.url}/status`, { headers: auth })).json()) as { files: { roots: string[] } };
      expect(status.files.roots).toEqual([env.BRIDGE_FILES_ROOT]);
      const document = (await (await fetch(`${service.url}/document/current`, { headers: auth })).json()) as { id: number };
      const cutout = await fetch(`${service.url}/action/remove-background`, { method: "POST", headers: auth, body: JSON.stringify({ documentId: document.id, method: "model" }) });
      expect(await cutout.json()).toMatchObject({ success: true, method: "model" });
    } finally {
      await service.stop();
    }
    // A cutout with the model is seconds of CPU (30 s seen at load 17); only a stuck start waits this out.
  }, 300_000);
});

describe("the service recipes in deploy/", () => {
  it("the systemd unit runs the same command, its header says how to install it (user, folders, npm ci), and it passes systemd-analyze verify where it exists", async () => {
    const unit = await readFile(join(DEPLOY, "image-editor-bridge.service"), "utf8");
    expect(/^ExecStart=\/usr\/bin\/(.+)$/m.exec(unit)?.[1]).toBe(COMMAND);
    expect(unit).toMatch(/^KillMode=control-group$/m);
    const env = await readFile(join(DEPLOY, "image-editor-bridge.env"), "utf8");
    expect(env).toMatch(/^BRIDGE_TOKEN=/m);
    // The install recipe in the unit's header creates what the unit names, and builds with npm ci alone.
    const setting = (key: string): string | undefined => new RegExp(`^${key}=(.+)$`, "m").exec(unit)?.[1];
    const recipe = [...unit.matchAll(/^# {3}(\S.*?)(?:\s+#.*)?$/gm)].map((m) => m[1]!);
    const user = setting("User")!;
    expect(recipe.find((c) => c.startsWith("useradd "))?.split(" ").at(-1)).toBe(user);
    expect(recipe).toContain(`cd ${setting("WorkingDirectory")} && npm ci`);
    expect(recipe.join("\n")).not.toMatch(/npm run build|npm install/);
    const filesRoot = /^BRIDGE_FILES_ROOT=(.+)$/m.exec(env)?.[1];
    expect([setting("ReadWritePaths"), filesRoot]).toEqual([expect.any(String), setting("ReadWritePaths")]);
    expect(recipe).toContainEqual(expect.stringMatching(new RegExp(`^install -d -o ${user} -g ${user} .*${filesRoot}$`)));
    expect(recipe).toContainEqual(expect.stringMatching(new RegExp(`^install -m 600 deploy/image-editor-bridge\\.env ${setting("EnvironmentFile")}$`)));
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
