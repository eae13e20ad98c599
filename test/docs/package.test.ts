import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The files `npm pack` would put in the package, as npm itself lists them. */
async function packedFiles(): Promise<Set<string>> {
  const { stdout } = await promisify(execFile)("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  const [pack] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>;
  return new Set(pack!.files.map((f) => f.path));
}

/** Relative link targets of a Markdown file (no URLs, no in-page anchors), as paths from the package root. */
async function relativeLinks(doc: string): Promise<string[]> {
  const text = await readFile(join(ROOT, doc), "utf8");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!.split("#")[0]!)
    .filter((target) => target !== "" && !/^[a-z]+:/i.test(target))
    .map((target) => normalize(join(dirname(doc), target)).replace(/\/$/, ""));
}

describe("the npm package", () => {
  it("ships the licence, the docs, the examples and the service recipes, and every link of the README and docs resolves inside it", async () => {
    const files = await packedFiles();
    for (const needed of ["LICENSE", "README.md", "SECURITY.md", "docs/editors.md", "examples/recipes/batch-export.mjs", "deploy/Dockerfile", "dist/index.js"]) {
      expect(files.has(needed), needed).toBe(true);
    }
    const docs = ["README.md", ...[...files].filter((f) => f.startsWith("docs/") && f.endsWith(".md"))];
    for (const doc of docs) {
      for (const target of await relativeLinks(doc)) {
        const inside = files.has(target) || [...files].some((f) => f.startsWith(`${target}/`));
        expect(inside, `${doc} links to ${target}, which the package does not ship`).toBe(true);
      }
    }
  });
});
