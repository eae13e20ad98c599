import { spawn } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runToExit } from "../helpers/until-started.js";

/*
 * Which file `image-editor-bridge serve` runs: the build's one-file bundle of the bridge when it is there, the
 * compiled modules when the build could not make one (its bundler is a development dependency with a native part
 * per platform). Each case runs the real bin from a package folder whose dist/cli says which of the two exists; the
 * rest of dist/ and node_modules are links to this repository's.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** The startup line of a bridge listening on loopback (stricter than the helper's, which only decides when to stop). */
const LOOPBACK_STARTUP_LINE = /^image-editor-bridge \S+ · http:\/\/127\.0\.0\.1:\d+ .*\n/m;

describe("the command line's bridge", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  /** A package folder with this repository's bin and dist, dist/cli holding no bundle; returns the bin's path. */
  async function packageWithoutBundle(): Promise<string> {
    dir = await mkdtemp(join(tmpdir(), "bridge-bin-"));
    await mkdir(join(dir, "bin"));
    await copyFile(join(ROOT, "bin", "image-editor-bridge.js"), join(dir, "bin", "image-editor-bridge.js"));
    await copyFile(join(ROOT, "package.json"), join(dir, "package.json"));
    await symlink(join(ROOT, "node_modules"), join(dir, "node_modules"));
    await mkdir(join(dir, "dist", "cli"), { recursive: true });
    for (const entry of await readdir(join(ROOT, "dist"))) {
      if (entry !== "cli") await symlink(join(ROOT, "dist", entry), join(dir, "dist", entry));
    }
    for (const entry of await readdir(join(ROOT, "dist", "cli"))) {
      if (entry !== "serve-bundle.js") await symlink(join(ROOT, "dist", "cli", entry), join(dir, "dist", "cli", entry));
    }
    return join(dir, "bin", "image-editor-bridge.js");
  }

  /** Runs `bin serve …` until it prints its startup line (then stops it) or exits; its output and exit. */
  function serve(bin: string, args: string[]): Promise<{ stdout: string; code: number | null; stderr: string }> {
    return runToExit(spawn(process.execPath, [bin, "serve", ...args], { stdio: ["ignore", "pipe", "pipe"] }), true);
  }

  it("runs the bundle when the build made one", async () => {
    const bin = await packageWithoutBundle();
    await writeFile(
      join(dir!, "dist", "cli", "serve-bundle.js"),
      'export class UsageError extends Error {}\nexport class StartupError extends Error {}\nexport async function main(argv) { process.stdout.write("the bundle ran " + argv.join(" ") + "\\n"); }\n',
    );
    expect(await serve(bin, ["--listen", "0"])).toMatchObject({ stdout: "the bundle ran serve --listen 0\n", code: 0 });
  });

  it("serves from the compiled modules when the build made no bundle", async () => {
    const bin = await packageWithoutBundle();
    // Photoshop, not found here: the bridge listens without an editor process to start.
    const { stdout, code, stderr } = await serve(bin, ["--listen", "127.0.0.1:0", "--editor", "photoshop"]);
    expect(stdout, stderr).toMatch(LOOPBACK_STARTUP_LINE);
    expect(code, stderr).toBe(0);
  });
});
