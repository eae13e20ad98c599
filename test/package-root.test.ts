import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { packageManifest, packageRoot } from "../src/package-root.js";

/*
 * Where the package's own files are found from a module (the editor's bundle, the dashboard, the Photoshop scripts,
 * the segmentation model, package.json): by this package's package.json above the module, at any depth, so a module
 * compiled under dist/, bundled into one file or run from its sources finds the same folder.
 */
describe("the package's folder", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  function folder(files: Record<string, string>): string {
    dir = mkdtempSync(join(tmpdir(), "bridge-root-"));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return dir;
  }

  const url = (...parts: string[]): string => pathToFileURL(join(dir!, ...parts)).href;

  it("from this module's sources is this repository", () => {
    expect(packageRoot()).toBe(fileURLToPath(new URL("..", import.meta.url)).replace(/[/\\]$/, ""));
    const { name, version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { name: string; version: string };
    expect(packageManifest()).toEqual({ name, version });
  });

  it("is found from a module at any depth under it, a bundle's or a compiled module's", () => {
    const root = folder({ "package.json": JSON.stringify({ name: "image-editor-bridge" }), "dist/cli/serve.js": "", "dist/hosts/embedded/cutout/model.js": "" });
    expect(packageRoot(url("dist", "cli", "serve.js"))).toBe(root);
    expect(packageRoot(url("dist", "hosts", "embedded", "cutout", "model.js"))).toBe(root);
  });

  it("passes over other packages' package.json and unreadable ones on the way up", () => {
    const root = folder({
      "package.json": JSON.stringify({ name: "image-editor-bridge" }),
      "dist/package.json": JSON.stringify({ type: "module" }),
      "dist/vendor/package.json": "{ not json",
      "dist/vendor/x.js": "",
    });
    expect(packageRoot(url("dist", "vendor", "x.js"))).toBe(root);
  });

  it("installed in another project, is the installed copy, not the project", () => {
    const root = folder({ "package.json": JSON.stringify({ name: "user-project" }), "node_modules/image-editor-bridge/package.json": JSON.stringify({ name: "image-editor-bridge" }) });
    expect(packageRoot(url("node_modules", "image-editor-bridge", "dist", "version.js"))).toBe(join(root, "node_modules", "image-editor-bridge"));
  });

  it("throws, naming where it looked from, when no folder above holds the package", () => {
    const root = folder({ "package.json": JSON.stringify({ name: "user-project" }), "lib/x.js": "" });
    expect(() => packageRoot(url("lib", "x.js"))).toThrow(`no package.json of image-editor-bridge in ${join(root, "lib")} or any folder above it`);
  });
});
