import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

  /** A package folder whose `dist/hosts/isolated/` holds `files`; returns that `isolated` folder. */
  function built(files: string[]): string {
    dir = mkdtempSync(join(tmpdir(), "bridge-entry-"));
    const isolated = join(dir, "dist", "hosts", "isolated");
    mkdirSync(isolated, { recursive: true });
    for (const file of files) {
      mkdirSync(join(isolated, file, ".."), { recursive: true });
      writeFileSync(join(isolated, file), "");
    }
    return isolated;
  }

  it("is the bundle when the build made one", () => {
    const isolated = built(["child.js", "editor/child.js"]);
    expect(resolveChildEntry(dir)).toBe(join(isolated, "editor", "child.js"));
  });

  it("is the compiled module when there is no bundle", () => {
    const isolated = built(["child.js"]);
    expect(resolveChildEntry(dir)).toBe(join(isolated, "child.js"));
  });

  it("is HOST_UNAVAILABLE, naming the file and the build, when neither is there", () => {
    const isolated = built([]);
    expect(() => resolveChildEntry(dir)).toThrow(expect.objectContaining({ code: "HOST_UNAVAILABLE", details: { entry: join(isolated, "child.js") } }));
  });

  it("from the sources (tests), is this repository's built bundle", () => {
    expect(resolveChildEntry()).toMatch(/dist[/\\]hosts[/\\]isolated[/\\]editor[/\\]child\.js$/);
  });
});
