// Servers and load drivers as processes of their own, pinned to cores: what the process benches (`limit.js`,
// `fanout-saturate.js`, `clients-10k.js`) are built from. The bridge runs as users run it (`image-editor-bridge serve`,
// its editor in a process of its own); the bare baseline (`_bare-server.js`) runs the same way beside it. The server
// goes to core BENCH_SERVER_CPU (0), the driver to BENCH_DRIVER_CPU (1), through `taskset`, so the two never take
// turns on one core; without `taskset` they run unpinned and the header says so.
import { execFileSync, fork, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import net from "node:net";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI = fileURLToPath(new URL("../bin/image-editor-bridge.js", import.meta.url));
const BARE = fileURLToPath(new URL("./_bare-server.js", import.meta.url));
const DRIVER = fileURLToPath(new URL("./_driver.js", import.meta.url));
const PROBE = fileURLToPath(new URL("./_memory-probe.js", import.meta.url));

export const SERVER_CPU = process.env.BENCH_SERVER_CPU ?? "0";
export const DRIVER_CPU = process.env.BENCH_DRIVER_CPU ?? "1";
/** Extra `serve` arguments for the bridge (space-separated), e.g. `--log-level warn`. */
const BRIDGE_ARGS = (process.env.BENCH_BRIDGE_ARGS ?? "").split(" ").filter(Boolean);
/** Extra Node flags for the server processes, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`; read at each start. */
const serverNodeArgs = () => (process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean);
const START_TIMEOUT_MS = 60_000;

let tasksetPath;
/** `taskset`'s path, or null where it is missing (then nothing is pinned). */
export function taskset() {
  if (tasksetPath !== undefined) return tasksetPath;
  try {
    tasksetPath = execFileSync("sh", ["-c", "command -v taskset"], { encoding: "utf8" }).trim() || null;
  } catch {
    tasksetPath = null;
  }
  return tasksetPath;
}

/** `[command, args]` running `node <args>` on `cpu`. */
function pinned(cpu, args) {
  const t = taskset();
  return t === null ? [process.execPath, args] : [t, ["-c", String(cpu), process.execPath, ...args]];
}

/** A free loopback port (listen on 0, read it, close). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

const CLK_TCK = 100;

/** CPU time (user + system, ms) of one process, all its threads; 0 once it is gone. */
function cpuOfPid(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
  } catch {
    return 0;
  }
}

/** The pid and every descendant of it (the bridge and its editor process). */
function processTree(root) {
  const children = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  const out = [];
  const visit = (pid) => {
    out.push(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(root);
  return out;
}

/** Resident set size of one process in bytes (VmRSS), or NaN. */
export function rssOf(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m === null ? NaN : Number(m[1]) * 1024;
  } catch {
    return NaN;
  }
}

/**
 * Starts a server process pinned to the server core (with `_memory-probe.js` preloaded): `kind` "bridge" (`image-editor-bridge serve`, logs to
 * /dev/null at the default level unless BENCH_BRIDGE_ARGS says otherwise) or "bare" (`_bare-server.js` with the
 * bridge's `answers`). `cli` overrides the bridge's entry (another build, for `--compare`). Resolves once it
 * answers HTTP. `cpuMs()` sums the CPU of the server and its children (the bridge's editor); `rss()` is the server
 * process's own resident memory.
 */
export async function startServer(kind, { answers = {}, cli = CLI, args = [] } = {}) {
  const port = await freePort();
  const nodeArgs =
    kind === "bridge" ? [cli, "serve", "--listen", `127.0.0.1:${port}`, ...BRIDGE_ARGS, ...args] : [BARE, String(port), JSON.stringify(answers)];
  nodeArgs.unshift("--expose-gc", "--import", PROBE, ...serverNodeArgs());
  const [command, argv] = pinned(SERVER_CPU, nodeArgs);
  const child = spawn(command, argv, { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, NODE_ENV: "production" } });
  let stderr = "";
  let partial = "";
  const probes = [];
  child.stderr.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-4_000);
    const lines = (partial + chunk).split("\n");
    partial = lines.pop();
    for (const line of lines) if (line.startsWith("#memory ")) probes.shift()?.(JSON.parse(line.slice(8)));
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${kind} server exited (${child.exitCode}): ${stderr}`);
    try {
      const res = await fetch(`${url}/health`);
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${kind} server did not answer within ${START_TIMEOUT_MS} ms: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    kind,
    pid: child.pid,
    url,
    wsUrl: `ws://127.0.0.1:${port}/ws`,
    port,
    cpuMs: () => processTree(child.pid).reduce((sum, pid) => sum + cpuOfPid(pid), 0),
    /** CPU of the server process alone (for the bridge: without its editor process). */
    ownCpuMs: () => cpuOfPid(child.pid),
    rss: () => rssOf(child.pid),
    /** `process.memoryUsage()` of the server after it collected garbage (`_memory-probe.js`). */
    memory: () =>
      new Promise((resolve) => {
        probes.push(resolve);
        child.kill("SIGUSR2");
      }),
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        child.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill("SIGTERM");
      }),
  };
}

/**
 * Resolves once `server` is idle: its CPU (with its children's) grew by at most `quietMs` over `windowMs`, or after
 * `maxMs`. After closing many sockets, so the work their closing leaves (a bridge keeps a closed client for its
 * resume) is not charged to what is measured next.
 */
export async function settled(server, { windowMs = 100, quietMs = 3, maxMs = 10_000 } = {}) {
  const deadline = Date.now() + maxMs;
  for (;;) {
    const c0 = server.cpuMs();
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    if (server.cpuMs() - c0 <= quietMs || Date.now() > deadline) return;
  }
}

/** The bridge's own answers, for the bare server to give the same bytes (selection set to `rect` first). */
export async function bridgeAnswers(bridge, rect) {
  const post = await fetch(`${bridge.url}/selection/set`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ rect }) });
  await post.arrayBuffer();
  const get = async (path) => (await fetch(`${bridge.url}${path}`)).json();
  const health = await get("/health");
  const selection = await get("/selection/area");
  const { default: WebSocket } = await import("ws");
  const ws = new WebSocket(bridge.wsUrl);
  const serverInfo = await new Promise((resolve, reject) => {
    ws.on("message", (data) => {
      const msg = JSON.parse(String(data));
      if (msg.id === 1) resolve(msg.result);
    });
    ws.once("open", () => ws.send(JSON.stringify({ id: 1, method: "getServerInfo" })));
    ws.once("error", reject);
  });
  ws.close(4000);
  return { health, selection, serverInfo };
}

/**
 * Starts the load driver (`_driver.js`) pinned to the driver core. `send(command, mark)` resolves with its answer
 * (one command at a time); `mark` hears the counted window's "start" and "end".
 */
export async function startDriver() {
  const [command, argv] = pinned(DRIVER_CPU, [DRIVER]);
  const child = fork(argv.at(-1), [], {
    execPath: command,
    execArgv: command === process.execPath ? [] : argv.slice(0, -1),
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const waiting = [];
  let onMark;
  child.on("message", (message) => {
    if (message?.mark !== undefined) onMark?.(message.mark);
    else waiting.shift()?.(message);
  });
  child.once("exit", (code) => {
    for (const resolve of waiting.splice(0)) resolve({ error: `driver exited with ${code}` });
  });
  /** `mark(name)` is called at the counted window's "start" and "end". */
  const send = (message, mark) =>
    new Promise((resolve, reject) => {
      onMark = mark;
      waiting.push((answer) => (answer?.error !== undefined ? reject(new Error(answer.error)) : resolve(answer)));
      child.send(message);
    });
  return {
    pid: child.pid,
    send,
    cpuMs: () => cpuOfPid(child.pid),
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** Header line naming how the processes are placed. */
export function placement() {
  return taskset() === null
    ? "taskset not found: server and driver run unpinned"
    : `server pinned to core ${SERVER_CPU}, driver to core ${DRIVER_CPU} (taskset)`;
}
