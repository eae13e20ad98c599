// The docs walk: every fenced shell block (```sh, ```bash, ```shell, ```console) of every Markdown page of the
// repository, run as a new user would run it on a fresh machine. test/docs/walk.test.ts runs this script once
// per page, each in network, PID and mount namespaces of its own (`unshare`), so the docs' own addresses
// (127.0.0.1:7700, Script-Fu on 10008) are free and private, and nothing started can outlive the page.
//
// Convention for the docs: a block whose commands cannot run here (they need a real Photoshop, a Docker engine,
// systemd as init, or minutes of machine time) carries, on the line right above its fence,
//
//   <!-- walk: form-only (needs a real Photoshop with Remote Connections) -->
//
// and the walk checks those commands for form only. Every other block is run, command by command, following the
// table in test/docs/_walk/plan.mjs. A command that is neither in the table nor in a marked block fails the walk,
// and so does a table entry whose command the page no longer has: the docs cannot drift from what is tested.
//
// The machine: a temp copy of the repository (its files as the working tree has them, `node_modules` linked
// since CI's own `npm ci` installed it, `dist/` as that install's `prepare` built it), a home folder of its own,
// and `image-editor-bridge` on PATH as `npm link` would put it there: a symlink to bin/image-editor-bridge.js in
// a folder on PATH (no global install is made). `npm start` runs as written, so it builds the copy first. The
// reader's own projects are folders beside the copy (`../image-editor-bridge` from them is the clone), and npm runs
// offline from the runner's npm cache: the namespace has no network.
//
//   node test/docs/walk.mjs <page.md>     (inside the namespaces; prints one JSON line per step)
import { mkdir, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { shellBlocks } from "./_walk/blocks.mjs";
import { createMachine, http, liveProcesses, printed, ready, runCommand, scriptFuServer, signalGroup, start, stop, stopHelpers, until } from "./_walk/machine.mjs";
import { PLAN } from "./_walk/plan.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);

/** A subscriber shows up in GET /status within this time, or it never will. */
const SUBSCRIBE_TIMEOUT_MS = 20_000;
/** A subscriber or a snippet that has not ended by then never will (each takes about a second). */
const PROGRAM_TIMEOUT_MS = 60_000;

/** Resolves with how `proc` exited; kills its group, and says so, if it runs past PROGRAM_TIMEOUT_MS. */
async function ended(proc) {
  const timer = setTimeout(() => signalGroup(proc, "SIGKILL"), PROGRAM_TIMEOUT_MS);
  const exit = await proc.exited;
  clearTimeout(timer);
  if (exit.signal === "SIGKILL") throw new Error(`"${proc.text}" was still running after ${PROGRAM_TIMEOUT_MS} ms: ${proc.out.slice(-1000)}`);
  return exit;
}

/**
 * Paths some commands name on the reader's machine, made inside this mount namespace only: `/srv/shared-art`
 * (a files root) on a tmpfs over /srv, and `/opt/gimp/bin/gimp-console-2.10` (a GIMP installed elsewhere) on a
 * tmpfs over /opt, linked to the GIMP on PATH. /opt is covered only when none of the tools the walk uses lives there.
 */
async function readerPaths() {
  const paths = { srv: false, opt: false };
  const mount = (dir) => run("mount", ["-t", "tmpfs", "walk", dir]).then(() => true, () => false);
  if (await mount("/srv")) {
    await mkdir("/srv/shared-art");
    paths.srv = true;
  }
  const tools = await run("bash", ["-c", `readlink -f $(command -v node npm bash curl gimp-console-2.10) ${process.execPath}`]).then(
    ({ stdout }) => stdout,
    () => "",
  );
  const gimp = await run("bash", ["-c", "command -v gimp-console-2.10"]).then(({ stdout }) => stdout.trim(), () => "");
  if (gimp !== "" && !/^\/opt\//m.test(tools) && (await mount("/opt"))) {
    await mkdir("/opt/gimp/bin", { recursive: true });
    await symlink(gimp, "/opt/gimp/bin/gimp-console-2.10");
    paths.opt = true;
  }
  return paths;
}

/**
 * The system's temporary folder on a tmpfs of this mount namespace, as many systems have it: the machine is made there,
 * and the bridge makes its GIMP profiles there. A copy of the repository took 3 s on the disk of a loaded machine and
 * 0.1 s there, and nothing a page leaves there outlives the namespace. Not when the walk reads from there what the
 * tmpfs would hide (the repository, npm's cache, Node itself); false then, or when the mount fails.
 */
async function tmpInMemory() {
  const tmp = await realpath(tmpdir());
  const read = await Promise.all([ROOT, process.env.WALK_NPM_CACHE, process.execPath].map((path) => realpath(path).catch(() => path)));
  if (read.some((path) => `${path}/`.startsWith(`${tmp}/`))) return false;
  return run("mount", ["-t", "tmpfs", "walk-tmp", tmp]).then(() => true, () => false);
}

/** Waits until a client of the bridge (the one `proc` runs) is subscribed to every type in `types`. */
function subscribed(proc, types, earlier) {
  return until(`a client subscribed to ${types.join(", ")}`, SUBSCRIBE_TIMEOUT_MS, async () => {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) throw new Error(`exited before it subscribed: ${proc.out.slice(0, 500)}`);
    const response = await http("/status").catch(() => undefined);
    if (response?.status !== 200) return undefined;
    const { clients } = await response.json();
    // A client the command made: one stopped earlier may still show as attached (its socket's close not yet read),
    // and then leaves its subscriptions to a detached, resumable client.
    const made = clients.filter((c) => !earlier.has(c.idPrefix));
    return made.some((c) => c.state === "attached" && types.every((t) => c.subscriptions.includes(t))) ? true : undefined;
  });
}

/** The id prefixes of the clients the bridge has now (attached or not). */
async function clientPrefixes() {
  const response = await http("/status").catch(() => undefined);
  if (response?.status !== 200) return new Set();
  const { clients } = await response.json();
  return new Set(clients.map((c) => c.idPrefix));
}

/**
 * Runs a code block of the page as a user's program: written to `file` in the working folder (after `prefix`, the
 * line the page tells Node 20 users to add), run with node; a program that keeps running (it listens for events)
 * is stopped with SIGTERM once it printed `until`. `check` gets its output.
 */
async function runSnippet(ctx, text, { lang, pick, file, prefix = "", until: enough, check }) {
  const code = [...text.matchAll(new RegExp(`\`\`\`${lang}\n([\\s\\S]*?)\`\`\``, "g"))].map((m) => m[1]).find(pick);
  if (code === undefined) throw new Error(`the page has no such ${lang} block any more`);
  await writeFile(join(ctx.cwd, file), `${prefix}${code}`);
  const proc = start(ctx.machine, `node ${file}`, { cwd: ctx.cwd });
  if (enough !== undefined) {
    await printed(proc, enough);
    proc.child.kill("SIGTERM");
  }
  const exit = await ended(proc);
  if (enough === undefined && exit.code !== 0) throw new Error(`exit ${exit.code ?? exit.signal}: ${proc.out.slice(0, 1000)}`);
  await check?.(proc.out);
}

/** Walks one page's steps in order; resolves with one result per step. */
export async function walkPage(page, machine, paths) {
  const text = await readFile(join(machine.repo, page), "utf8");
  const literal = new Map(shellBlocks(text).flatMap((b) => b.commands.map((c) => [c.key, c.text])));
  const ctx = {
    machine,
    paths,
    server: undefined,
    cwd: machine.repo,
    run: (command) => runCommand(machine, command, { cwd: ctx.cwd }),
    // For form checks that read what a command prints about itself (its usage, the names it knows): the same output
    // for every step of the page, so the command runs once per page and folder.
    printedBy: (command) => {
      const key = `${ctx.cwd}\0${command}`;
      if (!printedOnce.has(key)) printedOnce.set(key, ctx.run(command));
      return printedOnce.get(key);
    },
    serve: async (command, status) => {
      await stopServer();
      ctx.server = start(machine, command, { cwd: ctx.cwd });
      owner = results.at(-1);
      await printed(ctx.server, /http:\/\/127\.0\.0\.1:7700\b/);
      await ready(status);
    },
    // One after the other: a later GIMP starts with the plug-in registry the first wrote.
    scriptFuServers: async (ports) => {
      for (const port of ports) await scriptFuServer(machine, port);
    },
  };
  const printedOnce = new Map();
  const results = [];
  let owner; // the result of the step that started the server: a failure to stop is that step's
  const stopServer = async () => {
    if (ctx.server === undefined) return;
    const proc = ctx.server;
    ctx.server = undefined;
    try {
      await stop(machine, proc);
    } catch (error) {
      owner.error ??= `on stop: ${error.message}`;
    }
  };
  for (const step of PLAN[page] ?? []) {
    const result = { page, command: step.cmd ?? step.setup ?? `(${step.snippet.lang} snippet) ${step.snippet.name}`, mode: "run", ms: 0 };
    results.push(result);
    const started = Date.now();
    try {
      const skip = await step.needs?.(ctx);
      if (skip !== undefined) {
        Object.assign(result, { mode: "skipped", note: skip });
        continue;
      }
      if (step.same !== undefined) {
        Object.assign(result, { mode: "covered", note: `the same command runs in the walk of ${step.same}` });
        continue;
      }
      if (step.covered !== undefined && step.run === undefined) {
        Object.assign(result, { mode: "covered", note: step.covered });
        continue;
      }
      if (step.covered !== undefined) result.note = `runs "${step.run}"; not run: ${step.covered}`;
      else if (step.why !== undefined) result.note = step.why;
      if (step.snippet !== undefined) {
        result.mode = "run (snippet)";
        await runSnippet(ctx, text, step.snippet);
        continue;
      }
      if (step.drive !== undefined) {
        result.mode = "run (driven)";
        await step.before?.(ctx);
        await step.drive(ctx, text);
        continue;
      }
      const command = step.setup ?? step.run ?? literal.get(step.cmd);
      if (command === undefined) throw new Error("the page has no such command");
      await step.before?.(ctx);
      if (step.form !== undefined) {
        result.mode = "form-only";
        await step.form(ctx, command);
      } else if (step.serve !== undefined) {
        result.mode = step.setup === undefined ? "run (served)" : "setup (served)";
        await ctx.serve(command, step.serve.ready);
        await step.check?.(ctx);
      } else if (step.background !== undefined) {
        result.mode = "run (background)";
        const earlier = await clientPrefixes();
        const proc = start(machine, command, { cwd: ctx.cwd });
        try {
          await subscribed(proc, step.background.types, earlier);
          await step.background.drive(ctx);
        } catch (error) {
          signalGroup(proc, "SIGKILL");
          throw error;
        }
        if (step.background.interrupt !== undefined) {
          await printed(proc, /\n/);
          signalGroup(proc, step.background.interrupt); // Ctrl-C reaches the terminal's foreground process group
        }
        const exit = await ended(proc);
        const r = { code: exit.code, stdout: proc.stdout, stderr: proc.stderr };
        if (r.code !== 0) throw new Error(`exit ${exit.code ?? exit.signal}: ${r.stderr.slice(0, 500)}`);
        await step.check?.(r, ctx);
      } else {
        const r = await ctx.run(command);
        const skip = step.skipWhen?.(r);
        if (skip !== undefined) {
          Object.assign(result, { mode: "skipped", note: skip });
          continue;
        }
        if (r.code !== (step.code ?? 0)) throw new Error(`exit ${r.code}, expected ${step.code ?? 0}: ${(r.stderr || r.stdout).slice(0, 500)}`);
        await step.check?.(r, ctx);
      }
    } catch (error) {
      result.error = error instanceof Error ? error.message : String(error);
    } finally {
      result.ms = Date.now() - started;
    }
  }
  await stopServer();
  await stopHelpers(machine);
  for (const proc of machine.processes) signalGroup(proc, "SIGKILL");
  const left = await liveProcesses(machine);
  if (left.length > 0) results.push({ page, command: "(end of page)", mode: "run", error: `processes left running: ${left.map((p) => p.cmdline).join("; ")}` });
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const page = process.argv[2];
  process.env.WALK_NPM_CACHE ||= (await run("npm", ["config", "get", "cache"], { cwd: tmpdir() })).stdout.trim();
  const inMemory = await tmpInMemory();
  const machine = await createMachine(ROOT);
  try {
    const paths = await readerPaths();
    for (const result of await walkPage(page, machine, paths)) process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    // A tmpfs goes with the namespace.
    if (!inMemory) await rm(machine.base, { recursive: true, force: true });
  }
}
