import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseListen, parseServeArgs, UsageError } from "../src/cli-args.js";
import { main } from "../src/cli.js";

describe("command line", () => {
  it("defaults to serving the embedded editor on 127.0.0.1:7700", () => {
    expect(parseServeArgs([], {})).toMatchObject({ listen: { host: "127.0.0.1", port: 7700 }, editor: "embedded", sample: true });
  });

  it("flags win over BRIDGE_* environment variables, which win over defaults", () => {
    const env = { BRIDGE_LISTEN: "127.0.0.1:9000", BRIDGE_TOKEN: "env", BRIDGE_ALLOW_ORIGIN: "https://a.example, https://b.example" };
    expect(parseServeArgs(["serve"], env)).toMatchObject({
      listen: { port: 9000 },
      token: "env",
      allowOrigins: ["https://a.example", "https://b.example"],
    });
    expect(parseServeArgs(["serve", "--listen", "[::1]:7701", "--token", "flag", "--no-sample"], env)).toMatchObject({
      listen: { host: "::1", port: 7701 },
      token: "flag",
      sample: false,
    });
  });

  it("bad input is a UsageError with a clear message", () => {
    expect(() => parseListen("host:99999")).toThrow(UsageError);
    expect(() => parseServeArgs(["serve", "--bogus"], {})).toThrow(UsageError);
    expect(() => parseServeArgs(["launch"], {})).toThrow(/Unknown command/);
  });

  it("an unknown editor is refused with a clear message", async () => {
    await expect(main(["serve", "--editor", "krita"], { handleSignals: false, env: {} })).rejects.toThrow(/--editor expects one of/);
  });

  it("serve starts a bridge, prints a startup line with URL, editor and document, and closes", async () => {
    let printed = "";
    const bridge = await main(["serve", "--listen", "127.0.0.1:0", "--log-level", "silent"], {
      handleSignals: false,
      env: {},
      stdout: { write: (text: string) => (printed += text) },
    });
    try {
      expect(printed).toContain(bridge!.url);
      expect(printed).toMatch(/editor: embedded · document: Sample \(800×600\)/);
      expect((await fetch(`${bridge!.url}/health`)).status).toBe(200);
    } finally {
      await bridge!.close();
    }
  });
});

describe("file access on the command line", () => {
  it("--files-root is repeatable (or BRIDGE_FILES_ROOT, comma-separated); the other file flags default off", () => {
    expect(parseServeArgs(["--files-root", "/a", "--files-root", "/b"], {})).toMatchObject({ filesRoots: ["/a", "/b"] });
    expect(parseServeArgs([], { BRIDGE_FILES_ROOT: "/a, /b" })).toMatchObject({ filesRoots: ["/a", "/b"] });
    expect(parseServeArgs([], {})).toMatchObject({ filesRoots: [], allowAnyPath: false, allowEditorScripts: false, backupOnOverwrite: true });
    expect(parseServeArgs(["--allow-any-path", "--allow-editor-scripts", "--no-backup"], {})).toMatchObject({
      allowAnyPath: true,
      allowEditorScripts: true,
      backupOnOverwrite: false,
    });
  });

  it("off loopback the bridge refuses to start without --files-root or --allow-any-path, before binding anything", async () => {
    const serve = (args: string[]) => main(["serve", "--listen", "0.0.0.0:0", "--token", "t", "--log-level", "silent", ...args], { handleSignals: false, env: {} });
    await expect(serve([])).rejects.toThrow(UsageError);
    await expect(serve([])).rejects.toThrow(/--files-root <dir>, or --allow-any-path/);
  });

  it("a files root that does not exist is a usage error", async () => {
    await expect(
      main(["serve", "--listen", "127.0.0.1:0", "--log-level", "silent", "--files-root", "/nonexistent/root"], { handleSignals: false, env: {} }),
    ).rejects.toThrow(/Files root \/nonexistent\/root does not exist/);
  });

  it("the startup line says whether file access is confined, and to which folders", async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "bridge-cli-root-")));
    for (const [args, expected] of [
      [[], /files: any path \(unconfined/],
      [["--files-root", dir], new RegExp(`files: ${dir}`)],
    ] as const) {
      let printed = "";
      const bridge = await main(["serve", "--listen", "127.0.0.1:0", "--log-level", "silent", ...args], {
        handleSignals: false,
        env: {},
        stdout: { write: (text: string) => (printed += text) },
      });
      await bridge!.close();
      expect(printed).toMatch(expected);
    }
    await rm(dir, { recursive: true, force: true });
  });

  it("--help describes the file flags", async () => {
    let printed = "";
    await main(["--help"], { handleSignals: false, env: {}, stdout: { write: (text: string) => (printed += text) } });
    for (const flag of ["--files-root", "--allow-any-path", "--allow-editor-scripts", "--no-backup"]) expect(printed).toContain(flag);
  });
});

describe("command line failures", () => {
  it("--open of a missing file stops with a clear message instead of serving nothing", async () => {
    await expect(
      main(["serve", "--listen", "127.0.0.1:0", "--log-level", "silent", "--open", "/nonexistent/file.psd"], {
        handleSignals: false,
        env: {},
      }),
    ).rejects.toThrow(/could not start: .*file\.psd/);
  });
});
