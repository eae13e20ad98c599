// `npm run build` (and `npm start`'s prestart, `npm ci`'s prepare): builds only what is stale. Each step keeps a
// fingerprint of its inputs and outputs (paths and contents) in dist/.build/stamps.json; a step
// whose fingerprint is unchanged is skipped, so a start after `npm ci` builds nothing and serves at once. When a
// step does run, one line says which. The compiler itself is incremental (its build info in dist/.build, so
// deleting dist/ starts afresh). `node scripts/build.mjs --force` rebuilds everything.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const state = join(root, "dist", ".build");
const stampsFile = join(state, "stamps.json");
const tsBuildInfo = join(state, "tsbuildinfo");
const force = process.argv.includes("--force");

/** Every file under `dir` (relative to the root) whose name passes `keep`; none when it does not exist. */
function filesUnder(dir, keep = () => true) {
  const at = join(root, dir);
  if (!existsSync(at)) return [];
  return readdirSync(at, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && keep(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

const isTypeScript = (name) => name.endsWith(".ts");
let sourceList;
/** The TypeScript sources, listed once: every step but the dashboard's reads them. */
const sources = () => (sourceList ??= filesUnder("src", isTypeScript));

/**
 * The files' paths and contents; a missing file counts too (it must be made again). Contents, not modification
 * times: a copy of the repository (the docs walk's fresh machine, a CI cache, a container's COPY) gives every file a
 * new time but needs no build, and reading the sources costs tens of milliseconds.
 */
function fingerprint(paths) {
  const hash = createHash("sha256");
  for (const path of [...paths].sort()) {
    const file = join(root, path);
    hash.update(`${path}\0`);
    hash.update(existsSync(file) ? readFileSync(file) : "missing");
    hash.update("\n");
  }
  return hash.digest("hex");
}

function node(script) {
  const result = spawnSync(process.execPath, [join(root, script)], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function compile() {
  // Build info without its outputs would make the compiler skip files that are gone: start afresh then.
  if (!existsSync(join(root, "dist", "index.js"))) rmSync(tsBuildInfo, { force: true });
  const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");
  const args = ["-p", "tsconfig.build.json", "--incremental", "--tsBuildInfoFile", tsBuildInfo];
  const result = spawnSync(process.execPath, [tsc, ...args], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/**
 * The steps in order, each with what it reads and writes. The generators import the compiled method table and
 * plugin machine, so any TypeScript source is an input of theirs.
 */
const STEPS = [
  {
    name: "tsc",
    files: () => [...sources(), "tsconfig.json", "tsconfig.build.json", "package.json", "dist/index.js"],
    run: compile,
  },
  {
    // After the compiler, from its output; the packages it takes in are inputs too (an `npm ci` may change them).
    name: "bundles",
    files: () => [...sources(), "package-lock.json", "scripts/bundle.mjs", "dist/hosts/isolated/editor/child.js", "dist/cli/serve-bundle.js"],
    run: () => node("scripts/bundle.mjs"),
  },
  {
    name: "dashboard files",
    files: () => filesUnder("src/dashboard", (name) => !isTypeScript(name)).flatMap((path) => [path, path.replace(/^src/, "dist")]),
    run: () => node("scripts/copy-dashboard.mjs"),
  },
  {
    name: "CLI catalog",
    files: () => [...sources(), "package.json", "scripts/gen-cli-catalog.mjs", "dist/cli/catalog.json"],
    run: () => node("scripts/gen-cli-catalog.mjs"),
  },
  {
    name: "API docs",
    files: () => [...sources(), "package.json", "scripts/gen-api-docs.mjs", "docs/api.md"],
    run: () => node("scripts/gen-api-docs.mjs"),
  },
  {
    name: "Python client",
    files: () => [...sources(), "package.json", "scripts/gen-python-client.mjs", "clients/python/image_editor_bridge/_generated.py"],
    run: () => node("scripts/gen-python-client.mjs"),
  },
  {
    name: "lifecycle diagram",
    files: () => [...sources(), "scripts/gen-lifecycle.mjs", "docs/plugins.md"],
    run: () => node("scripts/gen-lifecycle.mjs"),
  },
];

const stamps = force || !existsSync(stampsFile) ? {} : JSON.parse(readFileSync(stampsFile, "utf8"));
const stale = STEPS.filter((step) => stamps[step.name] !== fingerprint(step.files()));
if (stale.length > 0) {
  process.stdout.write(`image-editor-bridge: building ${stale.map((step) => step.name).join(", ")} (changed since the last build)\n`);
  for (const step of stale) {
    step.run();
    // Taken after the step, so its own outputs (rewritten even when unchanged) count as built.
    stamps[step.name] = fingerprint(step.files());
    mkdirSync(state, { recursive: true });
    writeFileSync(stampsFile, `${JSON.stringify(stamps, null, 2)}\n`);
  }
}
