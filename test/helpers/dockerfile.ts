import { execFile } from "node:child_process";
import { cp, mkdir, readFile, stat, symlink } from "node:fs/promises";
import { basename, dirname, join, relative, resolve } from "node:path";
import { promisify } from "node:util";

/*
 * A Dockerfile replayed with plain processes, for machines without a Docker engine: each stage's container file
 * system is a folder (`/` of the container), COPY copies from the build context (less what .dockerignore leaves
 * out) or from an earlier stage's folder, WORKDIR and ENV are followed, and RUN commands are run where the replay
 * knows how (see `runCommand`); any other RUN command fails the replay, so a new one must be taught here.
 */

const run = promisify(execFile);

export interface Instruction {
  readonly op: string;
  readonly args: string;
  /** The line the instruction starts on (1-based), for messages. */
  readonly line: number;
}

export interface Stage {
  readonly name: string;
  /** The image or earlier stage it starts from. */
  readonly from: string;
  readonly instructions: readonly Instruction[];
}

/** The stages of a Dockerfile, in order: continuations joined, comments and blank lines left out. */
export function parseDockerfile(text: string): Stage[] {
  const stages: Array<{ name: string; from: string; instructions: Instruction[] }> = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let line = lines[i]!;
    while (line.endsWith("\\") && i + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++i]!.trim()}`;
    line = line.trim();
    if (line === "" || line.startsWith("#")) continue;
    const op = line.split(/\s+/)[0]!.toUpperCase();
    const args = line.slice(op.length).trim();
    if (op === "FROM") {
      const [from, as, name] = args.split(/\s+/);
      stages.push({ name: as?.toUpperCase() === "AS" ? name! : String(stages.length), from: from!, instructions: [] });
    } else {
      const stage = stages.at(-1);
      if (stage === undefined) throw new Error(`Dockerfile line ${start + 1}: ${op} before any FROM`);
      stage.instructions.push({ op, args, line: start + 1 });
    }
  }
  return stages;
}

/** The stages `target` needs, dependencies first: the ones it starts FROM and the ones it copies `--from`. */
export function stagesFor(stages: readonly Stage[], target: string): Stage[] {
  const byName = new Map(stages.map((s) => [s.name, s]));
  const order: Stage[] = [];
  const visit = (name: string): void => {
    const stage = byName.get(name);
    if (stage === undefined || order.includes(stage)) return;
    visit(stage.from);
    for (const i of stage.instructions) {
      const from = /^--from=(\S+)/.exec(i.args)?.[1];
      if (i.op === "COPY" && from !== undefined) visit(from);
    }
    order.push(stage);
  };
  visit(target);
  return order;
}

/** `.dockerignore` patterns as a test on a context-relative path (a match on the path or any folder above it). */
export function dockerIgnore(text: string): (path: string) => boolean {
  const patterns = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((p) => new RegExp(`^${p.replace(/^\/+|\/+$/g, "").replace(/[.+^${}()|[\]]/g, "\\$&").replaceAll("*", "[^/]*").replaceAll("?", "[^/]")}$`));
  return (path) => {
    const parts = path.split("/");
    return parts.some((_, i) => patterns.some((p) => p.test(parts.slice(0, i + 1).join("/"))));
  };
}

/** A stage replayed: its container root folder, working directory, environment, user and command. */
export interface ReplayedStage {
  readonly name: string;
  readonly root: string;
  workdir: string;
  env: Record<string, string>;
  user: string | undefined;
  cmd: string[] | undefined;
  /** What the replay did instead of running a RUN command as written, one line each (for the test's messages). */
  readonly notes: string[];
}

export interface ReplayOptions {
  /** The build context (the repository). */
  readonly context: string;
  /** Where the stages' folders are made. */
  readonly scratch: string;
  /**
   * How `npm ci` is replayed. `link`: `node_modules` linked to the context's own (what `npm ci` installed there
   * from the same lockfile; checked to be the same file), then the package's `prepare` script unless the command
   * has `--ignore-scripts` (what `npm ci` runs after installing). `install`: `npm ci` itself, offline from npm's
   * cache (minutes on two cores).
   */
  readonly npmCi: "link" | "install";
}

/** Where a container path of `stage` is in its folder. */
export function hostPath(stage: ReplayedStage, path: string): string {
  return join(stage.root, resolve(stage.workdir, path));
}

/** Replays `stages` in order (as `stagesFor` lists them); resolves with each one by name. */
export async function replay(stages: readonly Stage[], options: ReplayOptions): Promise<Map<string, ReplayedStage>> {
  const ignored = dockerIgnore(await readFile(join(options.context, ".dockerignore"), "utf8").catch(() => ""));
  const done = new Map<string, ReplayedStage>();
  for (const stage of stages) {
    const base = done.get(stage.from);
    const root = join(options.scratch, stage.name);
    if (base !== undefined) await cp(base.root, root, { recursive: true, verbatimSymlinks: true });
    else await mkdir(root, { recursive: true });
    const state: ReplayedStage = {
      name: stage.name,
      root,
      workdir: base?.workdir ?? "/",
      env: { ...base?.env },
      user: base?.user,
      cmd: base?.cmd,
      notes: [],
    };
    for (const instruction of stage.instructions) {
      try {
        await apply(state, instruction, { ...options, ignored, done });
      } catch (error) {
        throw new Error(`Dockerfile line ${instruction.line} (${instruction.op} ${instruction.args}) in stage ${stage.name}: ${(error as Error).message}`);
      }
    }
    done.set(stage.name, state);
  }
  return done;
}

interface ApplyContext extends ReplayOptions {
  readonly ignored: (path: string) => boolean;
  readonly done: Map<string, ReplayedStage>;
}

async function apply(state: ReplayedStage, { op, args }: Instruction, ctx: ApplyContext): Promise<void> {
  switch (op) {
    case "WORKDIR":
      state.workdir = resolve(state.workdir, args);
      await mkdir(hostPath(state, "."), { recursive: true });
      return;
    case "ENV":
      for (const [, key, value] of args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) state.env[key!] = value!.replace(/^"|"$/g, "");
      return;
    case "USER":
      state.user = args;
      return;
    case "CMD":
      state.cmd = JSON.parse(args) as string[];
      return;
    case "EXPOSE":
      return;
    case "COPY":
      return copy(state, args, ctx);
    case "RUN":
      for (const command of args.split("&&").map((c) => c.trim())) await runCommand(state, command, ctx);
      return;
    default:
      throw new Error(`the replay does not know ${op}`);
  }
}

/** COPY [--from=stage] <src>... <dest>: a folder's contents go into dest; files into dest when it ends with `/`. */
async function copy(state: ReplayedStage, args: string, ctx: ApplyContext): Promise<void> {
  const words = args.split(/\s+/);
  const fromStage = /^--from=(\S+)$/.exec(words[0]!)?.[1];
  if (fromStage !== undefined) words.shift();
  const dest = words.pop()!;
  const source = fromStage === undefined ? undefined : ctx.done.get(fromStage);
  if (fromStage !== undefined && source === undefined) throw new Error(`no stage ${fromStage} was replayed before`);
  for (const src of words) {
    const from = source === undefined ? join(ctx.context, src) : join(source.root, resolve(source.workdir, src));
    const info = await stat(from).catch(() => undefined);
    if (info === undefined) throw new Error(`${src} does not exist in ${source === undefined ? "the build context" : `stage ${fromStage}`}`);
    if (source === undefined && ctx.ignored(relative(ctx.context, from))) throw new Error(`${src} is left out of the build context by .dockerignore`);
    const into = info.isDirectory() || dest.endsWith("/") || words.length > 1;
    const to = info.isDirectory() ? hostPath(state, dest) : into ? join(hostPath(state, dest), basename(src)) : hostPath(state, dest);
    await mkdir(info.isDirectory() ? to : dirname(to), { recursive: true });
    const filter = source === undefined ? (path: string) => !ctx.ignored(relative(ctx.context, path)) : () => true;
    await cp(from, to, { recursive: true, filter });
  }
}

/** One command of a RUN line, as the replay can run it here. */
async function runCommand(state: ReplayedStage, command: string, ctx: ApplyContext): Promise<void> {
  const words = command.split(/\s+/);
  if (words[0] === "npm" && words[1] === "ci") return npmCi(state, words.slice(2), ctx);
  if (words[0] === "mkdir" && words[1] === "-p" && words.length > 2) {
    for (const path of words.slice(2)) await mkdir(hostPath(state, path), { recursive: true });
    return;
  }
  if (words[0] === "chown" && words.length === 3) {
    // Users are the image's (node:* images have `node`); here it is checked that the path exists, and noted.
    await stat(hostPath(state, words[2]!));
    state.notes.push(`${command}: not run (ownership inside the image)`);
    return;
  }
  throw new Error(`the replay does not know how to run "${command}": teach test/helpers/dockerfile.ts`);
}

async function npmCi(state: ReplayedStage, flags: string[], ctx: ApplyContext): Promise<void> {
  const cwd = hostPath(state, ".");
  const env = { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", ...state.env };
  const lock = await readFile(join(cwd, "package-lock.json"), "utf8");
  if (ctx.npmCi === "install") {
    await run("npm", ["ci", "--offline", ...flags], { cwd, env, maxBuffer: 64 * 1024 * 1024 });
    state.notes.push(`npm ci ${flags.join(" ")}: run offline from npm's cache`);
    return;
  }
  if (lock !== (await readFile(join(ctx.context, "package-lock.json"), "utf8"))) throw new Error("the copied package-lock.json is not the context's");
  await symlink(join(ctx.context, "node_modules"), join(cwd, "node_modules"), "dir");
  const scripts = flags.includes("--ignore-scripts") ? [] : ["prepare"];
  const { scripts: defined = {} } = JSON.parse(await readFile(join(cwd, "package.json"), "utf8")) as { scripts?: Record<string, string> };
  for (const script of scripts.filter((s) => defined[s] !== undefined)) await run("npm", ["run", script], { cwd, env, maxBuffer: 64 * 1024 * 1024 });
  state.notes.push(`npm ci ${flags.join(" ")}: node_modules linked to the context's (the same lockfile)${scripts.length > 0 ? ", then npm run prepare" : ""}`);
}
