import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { resolveChildEntry } from "../../../src/hosts/isolated/spawn.js";

/*
 * Which file an editor process starts from: the build's one-file bundle when it is there, the compiled module
 * otherwise (a build whose bundler could not run), and a named error when neither was built.
 */
describe("the editor process's entry", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  /** A built `isolated` folder holding `files`, and the URL its `spawn.js` would have. */
  function built(files: string[]): string {
    dir = mkdtempSync(join(tmpdir(), "bridge-entry-"));
    for (const file of files) {
      mkdirSync(join(dir, file, ".."), { recursive: true });
      writeFileSync(join(dir, file), "");
    }
    return pathToFileURL(join(dir, "spawn.js")).href;
  }

  it("is the bundle when the build made one", () => {
    const url = built(["child.js", "editor/child.js"]);
    expect(resolveChildEntry(url)).toBe(join(dir!, "editor", "child.js"));
  });

  it("is the compiled module when there is no bundle", () => {
    const url = built(["child.js"]);
    expect(resolveChildEntry(url)).toBe(join(dir!, "child.js"));
  });

  it("is HOST_UNAVAILABLE, naming the file and the build, when neither is there", () => {
    const url = built([]);
    expect(() => resolveChildEntry(url)).toThrow(expect.objectContaining({ code: "HOST_UNAVAILABLE", details: { entry: join(dir!, "child.js") } }));
  });

  it("from the sources (tests), is this repository's built bundle", () => {
    expect(resolveChildEntry()).toMatch(/dist[/\\]hosts[/\\]isolated[/\\]editor[/\\]child\.js$/);
  });
});
