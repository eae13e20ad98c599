// Runs the Python client's checks: `mypy --strict` on the package, its tests and the examples of docs/python.md,
// then its pytest suite against real bridges (dist/ must be built: `node scripts/build.mjs`). The interpreter is
// the first of /usr/bin/python3 (Debian's, with python3-websockets, python3-pytest and mypy) and python3 that can
// import websockets, pytest and mypy. Without one it says why and exits 0, unless `--require` (CI) makes that a
// failure. `npm run test:python`; `.ci/run` passes --require.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { projectCacheDir } from "../dist/cache-dir.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const client = join(root, "clients", "python");
const require = process.argv.includes("--require");
const pytestArgs = process.argv.slice(2).filter((arg) => arg !== "--require");

const CANDIDATES = ["/usr/bin/python3", "python3"];
const probe = "import websockets, pytest, mypy.api";
const python = CANDIDATES.find((candidate) => spawnSync(candidate, ["-c", probe], { stdio: "ignore" }).status === 0);
if (python === undefined) {
  const why = `no Python with websockets, pytest and mypy among ${CANDIDATES.join(", ")} (Debian: apt-get install python3-websockets python3-pytest mypy)`;
  if (require) {
    process.stderr.write(`test-python-client: ${why}\n`);
    process.exit(1);
  }
  process.stdout.write(`test-python-client: skipped: ${why}\n`);
  process.exit(0);
}

/**
 * mypy's cache, kept with the user's other caches of this project rather than in the clone: a cold `mypy --strict`
 * of the package and its tests analyses the standard library and pytest (about 17 s on two cores), a warm one
 * only what changed. The docs examples' check in the pytest suite reads the same cache. mypy checks each cached
 * entry against its source and its own version, so a stale entry is analysed again, never trusted.
 */
const cacheDir = projectCacheDir();
const MYPY_CACHE_DIR = process.env["MYPY_CACHE_DIR"] ?? (cacheDir === undefined ? join(client, ".mypy_cache") : join(cacheDir, "mypy"));

function run(args) {
  process.stdout.write(`test-python-client: ${python} ${args.join(" ")}\n`);
  const env = { ...process.env, MYPYPATH: join(client, "tests"), MYPY_CACHE_DIR, REQUIRE_PYTHON_CLIENT: "1" };
  const result = spawnSync(python, args, { cwd: client, stdio: "inherit", env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

run(["-m", "mypy", "--strict", "image_editor_bridge", "tests"]);
run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests", ...pytestArgs]);
