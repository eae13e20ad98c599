import { execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coverageProblems, shellBlocks } from "./_walk/blocks.mjs";
import { PLAN } from "./_walk/plan.mjs";

/*
 * The docs walk (test/docs/walk.mjs explains the convention): every shell command of every Markdown page is run as
 * written on a fresh machine, or its block is marked form-only in the page and checked for form.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WALK = join(ROOT, "test", "docs", "walk.mjs");
const run = promisify(execFile);
/** Pages walk at most two at a time: the suite's two cores are shared with the other test files. */
const PAGES_AT_ONCE = 2;
/**
 * The slowest page (docs/gimp.md: six bridges, five GIMPs) takes about 30 s alone on two cores, and was seen near
 * 350 s while the rest of a grown suite ran beside it. Only a stuck page waits this out.
 */
const PAGE_TIMEOUT_MS = 900_000;

/** Every Markdown page of the repository, as the working tree has it (new pages included). */
async function pages(): Promise<Array<{ path: string; text: string }>> {
  const { stdout } = await run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "*.md"], { cwd: ROOT });
  const paths = stdout.split("\0").filter(Boolean);
  return Promise.all(paths.map(async (path) => ({ path, text: await readFile(join(ROOT, path), "utf8").catch(() => "") })));
}

/** Why the walk cannot run here: it needs network, PID and mount namespaces of its own, and `ip` to raise loopback. */
const NAMESPACE_SKIP = await run("unshare", ["-rn", "--pid", "--fork", "--mount-proc", "--kill-child", "ip", "link", "set", "lo", "up"]).then(
  () => undefined,
  (error: Error) => `unshare -rn --pid --mount-proc with ip (util-linux, iproute2) is not available here: ${error.message.split("\n")[0]}`,
);

/** The pages with a step that installs offline from npm's cache (`needsNpmCache` in the plan). */
const NEEDS_NPM_CACHE = new Set(Object.keys(PLAN).filter((page) => PLAN[page]!.some((step) => step.needsNpmCache === true)));

/**
 * Fills npm's cache with what installing the packed package needs, as a machine that has installed it before holds:
 * the registry's index of every dependency (a packed package's dependencies are ranges, which npm resolves from the
 * index) and the tarballs of the versions those ranges resolve to today. CI's `npm ci` leaves only the lockfile's
 * tarballs there, so without this the README's offline install could not run there (its step says `needsNpmCache`).
 * It needs the registry, as `npm ci` does; where there is none it gives up (resolving false), and that step is
 * skipped with npm's reason.
 */
async function fillNpmCache(): Promise<boolean> {
  const dir = await mkdtemp(join(tmpdir(), "walk-npm-cache-"));
  try {
    const { dependencies, optionalDependencies } = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8"));
    await writeFile(join(dir, "package.json"), JSON.stringify({ name: "walk-npm-cache", version: "1.0.0", private: true, dependencies, optionalDependencies }));
    const npm = (args: string[]) => run("npm", [...args, "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
    // The whole tree resolved (the index of every package, optional ones included, fetched into the cache) without
    // installing it; then the tarballs an install that leaves the optional packages out unpacks.
    await npm(["install", "--package-lock-only"]);
    const lock = JSON.parse(await readFile(join(dir, "package-lock.json"), "utf8")) as { packages: Record<string, { name?: string; version?: string; optional?: boolean }> };
    const specs = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== "" && entry.optional !== true && entry.version !== undefined)
      .map(([path, entry]) => `${entry.name ?? path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length)}@${entry.version}`);
    await npm(["cache", "add", ...specs]);
    return true;
  } catch {
    // No registry here: the step that needs it says so.
    return false;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface StepResult {
  page: string;
  command: string;
  mode: string;
  ms: number;
  note?: string;
  error?: string;
}

const running = new Set<number>();

/**
 * The pages that take longest (docs/gimp.md starts six bridges and their GIMPs, README.md runs npm's installs and
 * a pack, docs/cluster.md starts four bridges) start first, longest first, so that none starts while the other lane
 * has nothing left to walk.
 */
const LONGEST = ["docs/gimp.md", "README.md", "docs/cluster.md"];

/** Walks one page in namespaces of its own; resolves with its step results. */
function walk(page: string, npmCache: string): Promise<StepResult[]> {
  const child = spawn("unshare", ["-rn", "--pid", "--fork", "--mount-proc", "--kill-child", "bash", "-c", `ip link set lo up && exec node ${WALK} ${page}`], {
    cwd: ROOT,
    env: { ...process.env, WALK_NPM_CACHE: npmCache },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  running.add(child.pid!);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += String(chunk)));
  child.stderr.on("data", (chunk: Buffer) => (stderr += String(chunk)));
  // Leaving the namespace kills everything in it: a stuck page cannot leave processes behind.
  const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), PAGE_TIMEOUT_MS);
  return new Promise((resolve) => {
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      running.delete(child.pid!);
      const results = stdout
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as StepResult);
      if (code !== 0) results.push({ page, command: "(the walk itself)", mode: "run", ms: 0, error: `exited with ${code ?? signal}: ${stderr.slice(-2000)}` });
      resolve(results);
    });
  });
}

describe("the documented shell commands", () => {
  it("every command of every page is run by the walk or sits in a block marked form-only, and the walk names no command a page lost", async () => {
    const all = await pages();
    expect(all.map((p) => p.path)).toEqual(expect.arrayContaining(["README.md", "docs/client.md", "bench/README.md"]));
    expect(coverageProblems(all, PLAN)).toEqual([]);
  });

  it("a new block that is neither run nor marked fails the walk, and so does a dropped or unmarked form check", async () => {
    const readme = (await pages()).find((p) => p.path === "README.md")!;
    const added = `${readme.text}\n\`\`\`sh\nimage-editor-bridge frobnicate --all   # new\n\`\`\`\n`;
    expect(coverageProblems([{ path: "README.md", text: added }], { "README.md": PLAN["README.md"]! })).toEqual([
      expect.stringMatching(/^README\.md:\d+: the walk neither runs "image-editor-bridge frobnicate --all" nor is its block marked/),
    ]);
    const marked = `${readme.text}\n<!-- walk: form-only (needs a frobnicator) -->\n\`\`\`sh\nimage-editor-bridge frobnicate --all\n\`\`\`\n`;
    expect(coverageProblems([{ path: "README.md", text: marked }], { "README.md": PLAN["README.md"]! })).toEqual([
      expect.stringMatching(/"image-editor-bridge frobnicate --all" is marked form-only but the walk has no form check for it/),
    ]);
    const photoshop = (await pages()).find((p) => p.path === "docs/photoshop.md")!;
    const unmarked = photoshop.text.replaceAll(/^\s*<!-- walk: form-only \(.*\) -->\n/gm, "");
    expect(coverageProblems([{ path: "docs/photoshop.md", text: unmarked }], { "docs/photoshop.md": PLAN["docs/photoshop.md"]! })).toHaveLength(3);
  });

  it("reads commands as a reader pastes them: continuations joined, comments and console output left out", () => {
    const [block] = shellBlocks("<!-- walk: form-only (needs X) -->\n```console\n$ a --b \\\n  c   # why\nprinted\n$ d '#not a comment'\n```\n");
    expect(block).toMatchObject({ line: 2, formOnly: "needs X" });
    expect(block!.commands).toEqual([
      { text: "a --b \\\n  c   # why", key: "a --b c" },
      { text: "d '#not a comment'", key: "d '#not a comment'" },
    ]);
  });
});

describe.skipIf(NAMESPACE_SKIP !== undefined)(`a fresh-machine walk through every page${NAMESPACE_SKIP ? ` (${NAMESPACE_SKIP})` : ""}`, () => {
  const results = new Map<string, StepResult[]>();
  let npmCacheFilled = false;

  beforeAll(async () => {
    const rank = (page: string): number => (LONGEST.includes(page) ? LONGEST.indexOf(page) : LONGEST.length);
    const queue = Object.keys(PLAN).sort((a, b) => rank(a) - rank(b));
    // Asked once for every page: npm itself takes a second or two to start on a loaded machine.
    const npmCache = (await run("npm", ["config", "get", "cache"], { cwd: tmpdir() })).stdout.trim();
    // Filled while the first pages walk; only a page that installs from the cache waits for it.
    const filled = fillNpmCache();
    await Promise.all(
      Array.from({ length: PAGES_AT_ONCE }, async () => {
        for (let page = queue.shift(); page !== undefined; page = queue.shift()) {
          if (NEEDS_NPM_CACHE.has(page)) await filled;
          results.set(page, await walk(page, npmCache));
        }
      }),
    );
    npmCacheFilled = await filled;
  }, 2 * PAGE_TIMEOUT_MS);

  afterAll(() => {
    for (const pid of running) process.kill(-pid, "SIGKILL");
  });

  for (const [page, steps] of Object.entries(PLAN)) {
    it(`${page}: each command runs as written (or is checked for form where the page says why)`, () => {
      const walked = results.get(page) ?? [];
      expect(walked.filter((r) => r.error !== undefined)).toEqual([]);
      // With npm's cache filled, nothing is skipped for want of it.
      if (npmCacheFilled) expect(walked.filter((r) => r.mode === "skipped" && /npm's cache/.test(r.note ?? ""))).toEqual([]);
      expect(walked.map((r) => r.command)).toEqual(steps.map((s) => s.cmd ?? s.setup ?? expect.stringMatching(/^\(\w+ snippet\) /)));
    });
  }
});
