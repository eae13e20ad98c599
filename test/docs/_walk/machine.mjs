// The walk's machine: a temp copy of the repository, a home folder, the command on PATH, and the processes the
// walk starts, all inside the network and PID namespaces test/docs/walk.test.ts gives it.
import { execFile, spawn } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Where the docs' commands talk to: the default address, free in the walk's own network namespace. */
export const BRIDGE_URL = "http://127.0.0.1:7700";
/** A command that has not finished by then is stuck (the slowest, a client command, takes about a second alone). */
const COMMAND_TIMEOUT_MS = 120_000;
/**
 * Three GIMPs starting at once take about 15 s on a loaded two-core machine, and minutes beside a whole test suite;
 * only a broken start waits this out.
 */
const READY_TIMEOUT_MS = 240_000;
/**
 * The bridge closes its editors before it exits; a GIMP asked to quit takes up to its 2 s grace, then is killed,
 * and a loaded machine stretches both. Only a bridge that does not exit waits this out.
 */
const EXIT_TIMEOUT_MS = 90_000;
/** How often a wait on outside state (a port, /ready, /proc) looks again. */
const POLL_MS = 50;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Repeats `probe` until it returns something other than undefined, or throws `what` after `timeoutMs`. */
export async function until(what, timeoutMs, probe) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(POLL_MS);
  }
}

/**
 * A fresh machine as the docs assume one: the repository's files (tracked and new, as the working tree has them)
 * in a temp folder with `node_modules` linked and `dist/` as `npm ci` (its `prepare` script) builds it; a home
 * folder of its own; `image-editor-bridge` on PATH the way `npm link` puts it there (a symlink to
 * bin/image-editor-bridge.js: no global install is made); no BRIDGE_* or test variables; npm offline. The
 * reader's own project folders (`../image-editor-bridge` from them is the clone) are made beside the copy.
 */
export async function createMachine(root) {
  const base = await mkdtemp(join(tmpdir(), "docs-walk-"));
  const repo = join(base, "image-editor-bridge");
  const home = join(base, "home");
  const bin = join(base, "bin");
  // One tar stream rather than a copy per file: about 2 s against 14 s for the repository's thousand files at load 18,
  // and dist/ after them in the same stream (copied on its own, its 1,500 files took 2.5 s more at load 17, the stream
  // 0.5 s). The files get this moment's times (-m), as a fresh clone's do; a file deleted meanwhile is passed over.
  await mkdir(repo, { recursive: true });
  const files = "{ git ls-files -z --cached --others --exclude-standard; printf 'dist\\0'; }";
  await run("bash", ["-c", `set -o pipefail; ${files} | tar --null --ignore-failed-read -T - -cf - | tar -xmf - -C "$1"`, "copy", repo], { cwd: root });
  await symlink(join(root, "node_modules"), join(repo, "node_modules"));
  await mkdir(home, { recursive: true });
  await mkdir(bin, { recursive: true });
  await symlink(join(repo, "bin", "image-editor-bridge.js"), join(bin, "image-editor-bridge"));
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(BRIDGE_|VITEST|WALK_|NODE_ENV$|NODE_OPTIONS$|npm_)/.test(key)) env[key] = value;
  }
  Object.assign(env, { HOME: home, PATH: [bin, join(repo, "node_modules", ".bin"), process.env.PATH].join(delimiter), NO_COLOR: "1" });
  // No network in the walk's namespace: npm is told so, and reads the runner's cache (where CI's npm ci put the
  // lockfile's packages), as on a machine that installed them before. A package npm has never resolved there
  // answers ENOTCACHED. The walk's runner asks npm for the cache once (WALK_NPM_CACHE) rather than every page; walk.mjs
  // asks when it is run alone.
  Object.assign(env, { npm_config_offline: "true", npm_config_cache: process.env.WALK_NPM_CACHE, npm_config_update_notifier: "false" });
  return { base, repo, home, bin, env, processes: new Set(), helpers: new Set() };
}

/** Starts `text` with bash in its own process group, as a terminal would start a foreground job. */
export function start(machine, text, { cwd = machine.repo, env = {} } = {}) {
  const child = spawn("bash", ["-c", text], { cwd, env: { ...machine.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const proc = { child, text, out: "", stdout: "", stderr: "", waiters: [] };
  const onData = (stream) => (chunk) => {
    proc[stream] += String(chunk);
    proc.out += String(chunk);
    for (const waiter of proc.waiters.filter((w) => w.test(proc.out))) waiter.resolve();
  };
  child.stdout.on("data", onData("stdout"));
  child.stderr.on("data", onData("stderr"));
  proc.exited = new Promise((resolve) => child.once("close", (code, signal) => resolve({ code, signal })));
  proc.exited.then(() => machine.processes.delete(proc));
  machine.processes.add(proc);
  return proc;
}

/** Resolves when the output so far matches `pattern`; rejects when the process exits first or after `timeoutMs`. */
export function printed(proc, pattern, timeoutMs = READY_TIMEOUT_MS) {
  const test = (out) => (typeof pattern === "string" ? out.includes(pattern) : pattern.test(out));
  if (test(proc.out)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`"${proc.text}" printed no ${pattern} within ${timeoutMs} ms:\n${proc.out.slice(-2000)}`)), timeoutMs);
    proc.waiters.push({
      test,
      resolve: () => {
        clearTimeout(timer);
        resolve();
      },
    });
    proc.exited.then(({ code }) => {
      clearTimeout(timer);
      if (!test(proc.out)) reject(new Error(`"${proc.text}" exited with ${code} before printing ${pattern}:\n${proc.out.slice(-2000)}`));
    });
  });
}

/** Runs `text` to its end: `{ code, stdout, stderr }`. */
export async function runCommand(machine, text, options) {
  const proc = start(machine, text, options);
  const timer = setTimeout(() => signalGroup(proc, "SIGKILL"), COMMAND_TIMEOUT_MS);
  const { code, signal } = await proc.exited;
  clearTimeout(timer);
  return { code: signal === null ? code : `killed by ${signal} (stuck past ${COMMAND_TIMEOUT_MS} ms)`, stdout: proc.stdout, stderr: proc.stderr };
}

export function signalGroup(proc, signal) {
  try {
    process.kill(-proc.child.pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Stops a long-running command the way a service manager or `kill <pid>` does: SIGTERM to its process only. It
 * must exit on its own and leave nothing running behind it (editor processes included).
 */
export async function stop(machine, proc) {
  proc.child.kill("SIGTERM");
  const timer = setTimeout(() => signalGroup(proc, "SIGKILL"), EXIT_TIMEOUT_MS);
  const exit = await proc.exited;
  clearTimeout(timer);
  if (exit.signal === "SIGKILL") throw new Error(`"${proc.text}" did not exit within ${EXIT_TIMEOUT_MS} ms of SIGTERM`);
  const left = await until("the processes it started to exit", EXIT_TIMEOUT_MS, async () => {
    const alive = await liveProcesses(machine);
    return alive.length === 0 ? [] : undefined;
  }).catch(async () => liveProcesses(machine));
  if (left.length > 0) throw new Error(`"${proc.text}" left processes running after SIGTERM: ${left.map((p) => `${p.pid} ${p.cmdline}`).join("; ")}`);
  return exit;
}

/** Processes alive in this PID namespace other than the walk, its helpers and the commands it still runs. */
export async function liveProcesses(machine) {
  const ours = new Set([...machine.helpers, ...machine.processes].map((p) => p.child.pid));
  const alive = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const [state, , pgrp] = fields;
    if (stat === "" || state === "Z" || state === "X" || ours.has(Number(pgrp))) continue;
    const cmdline = (await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "")).replaceAll("\0", " ").trim();
    alive.push({ pid: Number(entry), cmdline });
  }
  return alive;
}

/** GET or POST on the bridge the docs talk to. */
export async function http(path, init) {
  return fetch(`${BRIDGE_URL}${path}`, init);
}

/** Waits until `GET /ready` answers `status` (200 once an editor takes calls; 503 while none can). */
export async function ready(status) {
  await until(`GET /ready to answer ${status}`, READY_TIMEOUT_MS, async () => {
    const response = await http("/ready").catch(() => undefined);
    await response?.body?.cancel();
    return response?.status === status ? true : undefined;
  });
}

/**
 * Starts a GIMP with its Script-Fu server on `port`, as someone else would run one for `--gimp-attach`: the
 * supervised GIMP's command line, with a profile of its own. Nothing when one already serves that port. A GIMP
 * already running here lends the new profile its plug-in registry (`pluginrc`), as earlier GIMP runs leave one on a
 * user's machine: without it GIMP queries each of its plug-ins first, about 1.5 CPU-seconds of every start.
 */
export async function scriptFuServer(machine, port) {
  if ([...machine.helpers].some((h) => h.port === port)) return;
  const profile = join(machine.base, `gimp-${port}`);
  await mkdir(profile, { recursive: true });
  await writeFile(join(profile, "gimprc"), `(tile-cache-size 256M)\n(swap-path "${profile}")\n`);
  for (const other of machine.helpers) {
    if (await copyFile(join(other.profile, "pluginrc"), join(profile, "pluginrc")).then(() => true, () => false)) break;
  }
  const call = `(plug-in-script-fu-server RUN-NONINTERACTIVE "127.0.0.1" ${port} "${join(profile, "server.log")}")`;
  const text = `gimp-console-2.10 -i --no-data --no-splash -b '${call}'`;
  const helper = start(machine, text, { env: { GIMP2_DIRECTORY: profile, XDG_CACHE_HOME: join(profile, "cache"), LC_ALL: "C.UTF-8" } });
  Object.assign(helper, { port, profile });
  machine.processes.delete(helper);
  machine.helpers.add(helper);
  await until(`a Script-Fu server on port ${port}`, READY_TIMEOUT_MS, () => {
    if (helper.child.exitCode !== null) throw new Error(`GIMP for port ${port} exited: ${helper.out.slice(-1000)}`);
    return new Promise((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(undefined));
    });
  });
}

/** Stops every helper GIMP (its process group) and waits until nothing the walk started is left. */
export async function stopHelpers(machine) {
  for (const helper of machine.helpers) signalGroup(helper, "SIGTERM");
  await Promise.all([...machine.helpers].map((h) => h.exited));
  machine.helpers.clear();
}
