import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type AddressInfo } from "node:net";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runToExit, STARTUP_LINE } from "../helpers/until-started.js";
import { MAX_EDITORS } from "../../src/actors/editors/pool.js";
import { parseServeArgs } from "../../src/cli/args.js";
import { parseListen } from "../../src/cli/addresses.js";
import { StartupError, UsageError } from "../../src/cli/errors.js";
import { main } from "../../src/cli/serve.js";
import { PACKAGE } from "../../src/version.js";

const BIN = fileURLToPath(new URL("../../bin/image-editor-bridge.js", import.meta.url));

interface BinRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the installed command (`image-editor-bridge …`) as a user would. A command that serves is stopped with
 * SIGTERM once it has printed its startup line; every other command runs to its exit.
 */
async function runBin(args: string[], env: Record<string, string> = {}): Promise<BinRun> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env["PATH"] ?? "", ...env }, stdio: "pipe" });
  return runToExit(child, args[0] === "serve");
}

describe("--listen", () => {
  it("a bare port listens on 127.0.0.1 (serve --listen 18101 is loopback, not host 1810 port 1)", () => {
    expect(parseListen("18101")).toEqual({ host: "127.0.0.1", port: 18101 });
    expect(parseServeArgs(["serve", "--listen", "18101"], {})).toMatchObject({ listen: { host: "127.0.0.1", port: 18101 } });
    expect(parseServeArgs(["serve", "--listen", "18101", "--token", "t"], {})).toMatchObject({ listen: { host: "127.0.0.1", port: 18101 } });
    expect(parseServeArgs(["serve"], { BRIDGE_LISTEN: "18101" })).toMatchObject({ listen: { host: "127.0.0.1", port: 18101 } });
  });

  it("host:port, [v6]:port and :port parse as before", () => {
    expect(parseListen("0.0.0.0:7700")).toEqual({ host: "0.0.0.0", port: 7700 });
    expect(parseListen("localhost:80")).toEqual({ host: "localhost", port: 80 });
    expect(parseListen("[::1]:7701")).toEqual({ host: "::1", port: 7701 });
    expect(parseListen(":7702")).toEqual({ host: "127.0.0.1", port: 7702 });
  });

  it("a host without a port is a usage error naming the forms, not a guessed port", () => {
    for (const bad of ["127.0.0.1", "localhost", "[::1]"]) {
      expect(() => parseListen(bad)).toThrow(UsageError);
      expect(() => parseListen(bad)).toThrow(`--listen expects host:port, [ipv6]:port or a bare port (e.g. 127.0.0.1:7700, [::1]:7700 or 7700): "${bad}" names a host but no port`);
    }
    for (const bad of ["70000", "host:99999", "a:b:1", "[::1]:", "host:", ""]) expect(() => parseListen(bad)).toThrow(UsageError);
    expect(() => parseServeArgs(["serve"], { BRIDGE_LISTEN: "127.0.0.1" })).toThrow(/^BRIDGE_LISTEN expects host:port/);
  });

  it("image-editor-bridge serve --listen <port> serves on 127.0.0.1 without a token, and with one", async () => {
    const [plain, withToken] = await Promise.all([
      runBin(["serve", "--listen", "0", "--log-level", "silent"]),
      runBin(["serve", "--listen", "0", "--token", "t", "--log-level", "silent"]),
    ]);
    expect(plain.stdout).toMatch(/^image-editor-bridge \S+ · http:\/\/127\.0\.0\.1:\d+ · /);
    expect(plain.stderr).toBe("");
    expect(withToken.stdout).toMatch(/· http:\/\/127\.0\.0\.1:\d+ · /);
  });

  it("image-editor-bridge serve --listen 127.0.0.1 exits 2 naming the form", async () => {
    const run = await runBin(["serve", "--listen", "127.0.0.1"]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^image-editor-bridge: --listen expects host:port, \[ipv6\]:port or a bare port .*"127\.0\.0\.1" names a host but no port\n/);
  });
});

describe("usage, help and version", () => {
  it("no arguments prints the usage and exits 0 without starting a server", async () => {
    const run = await runBin([]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(/^Usage: image-editor-bridge <command> \[options\]/);
    expect(run.stdout).toContain("serve [options]");
    expect(run.stdout).toContain("--listen <addr>");
  });

  it("help, --help, version and --version print and exit 0", async () => {
    const [helps, versions] = await Promise.all([
      Promise.all([["help"], ["--help"], ["-h"]].map((args) => runBin(args))),
      Promise.all([["version"], ["--version"], ["-v"]].map((args) => runBin(args))),
    ]);
    for (const run of helps) {
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Usage: image-editor-bridge <command>/);
    }
    for (const run of versions) expect(run).toEqual({ code: 0, stdout: `${PACKAGE.version}\n`, stderr: "" });
  });

  it("serve stays explicit: options without a command are a usage error (exit 2) suggesting serve", async () => {
    const run = await runBin(["--listen", "7700"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("a command comes first: image-editor-bridge serve --listen 7700");
  });

  it("methods lists every built-in method with its HTTP route, from the published schema", async () => {
    const run = await runBin(["methods"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^document:current +GET \/document\/current$/m);
    expect(run.stdout).toMatch(/^server:clients$/m);
  });

  it("methods <name> shows the method's params, result and route; an unknown name is a usage error", async () => {
    const [run, image, unknown] = await Promise.all([
      runBin(["methods", "layer:getInfoById"]),
      runBin(["methods", "image:exportLayer"]),
      runBin(["methods", "layer:nope"]),
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("params: {documentId?: integer, layerId: integer, getChildren?: boolean}");
    expect(run.stdout).toMatch(/result: \{id: integer, index: integer, name: string, kind: "pixel" \| "group"/);
    expect(run.stdout).toContain("http:   GET /layer/by-id/{layerId}");
    // `data` is a data URI, or on a binary WebSocket the reference to the binary message that carries the image.
    expect(image.stdout).toContain('result: {data: string (data URI) | {binary: integer 0..255, mime: string, bytes: integer ≥ 0}, format: "png" | "jpeg" | "webp"');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No built-in method "layer:nope"');
  });

  it("a bad --log-level or BRIDGE_LOG_LEVEL is a usage error (exit 2) listing the levels", async () => {
    // The command prints a UsageError in one line and exits 2 (serve --listen 127.0.0.1 above runs it for that).
    const refused = await main(["serve", "--log-level", "loud"], { handleSignals: false, env: {} }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as UsageError).message).toContain('--log-level expects one of trace, debug, info, warn, error, fatal, silent, got "loud"');
    expect(() => parseServeArgs(["serve"], { BRIDGE_LOG_LEVEL: "verbose" })).toThrow(UsageError);
  });

  it("methods and events refuse options; serve refuses the client commands' options", async () => {
    const [methods, events] = await Promise.all([runBin(["methods", "--json"]), runBin(["events", "extra"])]);
    expect(methods).toMatchObject({ code: 2, stderr: expect.stringContaining('methods takes no options, got "--json"') });
    expect(events).toMatchObject({ code: 2, stderr: expect.stringContaining('events takes no arguments, got "extra"') });
    expect(() => parseServeArgs(["serve", "--url", "http://127.0.0.1:7700"], {})).toThrow(/^unknown option --url for serve; see serve --help$/);
  });

  it("events lists the bridge's event types and each editor's own", async () => {
    const run = await runBin(["events"]);
    expect(run.code).toBe(0);
    for (const type of ["#ready", "selection:changed", "layer:previewChange", "documentChanged", "cutoutFinished", "imageChanged"]) {
      expect(run.stdout).toMatch(new RegExp(`^  ${type}$`, "m"));
    }
  });
});

describe("command line", () => {
  it("serve defaults to the embedded editor on 127.0.0.1:7700", () => {
    expect(parseServeArgs(["serve"], {})).toMatchObject({ listen: { host: "127.0.0.1", port: 7700 }, editor: "embedded", sample: true });
  });

  it("single-value flags win over BRIDGE_* environment variables, which win over defaults", () => {
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

  it("the startup line shows the editor memory budget and cap in force, lowered by --limit editorMaxMemoryBytes", async () => {
    let printed = "";
    const bridge = await main(["serve", "--listen", "127.0.0.1:0", "--log-level", "silent", "--limit", "editorMaxMemoryBytes=2GiB"], {
      handleSignals: false,
      env: {},
      stdout: { write: (text: string) => (printed += text) },
    });
    try {
      expect(printed).toContain(" · memory: 1.5 GiB budget, 2.0 GiB cap (");
    } finally {
      await bridge!.close();
    }
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
      // Without --files-root it says file access is not confined (the case below has the confined line).
      expect(printed).toMatch(/files: any path \(unconfined/);
      // The memory it may take, as the machine's size made it.
      expect(printed).toMatch(/ · memory: \d+\.\d GiB budget, \d+\.\d GiB cap \(--limit editorMaxMemoryBytes=4GiB lowers both\)\n$/);
      expect((await fetch(`${bridge!.url}/health`)).status).toBe(200);
    } finally {
      await bridge!.close();
    }
  });
});

describe("scoped tokens on the command line", () => {
  it("serve --read-token (or BRIDGE_READ_TOKEN) reads with the read token and refuses it a change with 403; it needs --token and must differ", async () => {
    expect(parseServeArgs(["serve", "--token", "t"], { BRIDGE_READ_TOKEN: "r" })).toMatchObject({ token: "t", readToken: "r" });
    expect(() => parseServeArgs(["serve", "--read-token", "r"], {})).toThrow(/^--read-token needs --token/);
    expect(() => parseServeArgs(["serve", "--token", "t", "--read-token", "t"], {})).toThrow(/^--read-token must differ from --token/);
    const bridge = await main(["serve", "--listen", "127.0.0.1:0", "--log-level", "silent", "--token", "full-t", "--read-token", "read-t"], {
      handleSignals: false,
      env: {},
      stdout: { write: () => true },
    });
    try {
      const as = (token: string, path: string, init: RequestInit = {}) => fetch(`${bridge!.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } });
      expect(await (await as("read-t", "/status")).json()).toMatchObject({ scope: "read" });
      expect((await as("read-t", "/document/current")).status).toBe(200);
      const refused = await as("read-t", "/selection/set", { method: "POST", body: JSON.stringify({ rect: null }) });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ code: "FORBIDDEN", details: { scope: "read", method: "selection:set" } });
      expect((await as("full-t", "/selection/set", { method: "POST", body: JSON.stringify({ rect: null }) })).status).toBe(200);
    } finally {
      await bridge!.close();
    }
  });
});

describe("file access on the command line", () => {
  it("--files-root is repeatable (or BRIDGE_FILES_ROOT, comma-separated); the other file flags default off", () => {
    expect(parseServeArgs(["serve", "--files-root", "/a", "--files-root", "/b"], {})).toMatchObject({ filesRoots: ["/a", "/b"] });
    expect(parseServeArgs(["serve"], { BRIDGE_FILES_ROOT: "/a, /b" })).toMatchObject({ filesRoots: ["/a", "/b"] });
    expect(parseServeArgs(["serve"], {})).toMatchObject({ filesRoots: [], allowAnyPath: false, allowEditorScripts: false, backupOnOverwrite: true });
    expect(parseServeArgs(["serve", "--allow-any-path", "--allow-editor-scripts", "--no-backup"], {})).toMatchObject({
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

  it("the startup line says whether file access is confined, and to which folders", async () => {
    // Unconfined, it says so: the line of "serve starts a bridge" above (no --files-root) is checked for that.
    const dir = await realpath(await mkdtemp(join(tmpdir(), "bridge-cli-root-")));
    let printed = "";
    const bridge = await main(["serve", "--listen", "127.0.0.1:0", "--log-level", "silent", "--files-root", dir], {
      handleSignals: false,
      env: {},
      stdout: { write: (text: string) => (printed += text) },
    });
    await bridge!.close();
    expect(printed).toMatch(new RegExp(`files: ${dir}`));
    await rm(dir, { recursive: true, force: true });
  });

  it("--help describes the file flags", async () => {
    let printed = "";
    await main(["--help"], { handleSignals: false, env: {}, stdout: { write: (text: string) => (printed += text) } });
    for (const flag of ["--files-root", "--allow-any-path", "--allow-editor-scripts", "--no-backup"]) expect(printed).toContain(flag);
  });
});

describe("startup failures: one fatal line, exit 1, nothing after it", () => {
  /** The whole of stderr is one line, and nothing says the bridge is listening or retrying. */
  const fatal = (run: BinRun, message: string): void => {
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`image-editor-bridge: cannot start: ${message}\n`);
    expect(run.stdout).not.toMatch(/listening|retrying/);
    expect(run.stdout).not.toMatch(STARTUP_LINE);
  };

  /**
   * The message `serve` in this process stops with, before it printed anything: the StartupError the command prints
   * as its one line. What is checked before anything starts fails the same way whatever the check: the command itself
   * runs for one of them (a missing --files-root) and for a port in use, which fails after the editor started.
   */
  async function refusedStart(args: string[], env: Record<string, string> = {}): Promise<string> {
    let printed = "";
    const outcome = await main(["serve", "--listen", "127.0.0.1:0", ...args], { handleSignals: false, env: { PATH: process.env["PATH"] ?? "", ...env }, stdout: { write: (text: string) => (printed += text) } }).then(
      async (bridge) => {
        await bridge?.close();
        return new Error("serve started");
      },
      (error: unknown) => error,
    );
    expect(outcome).toBeInstanceOf(StartupError);
    expect(printed).toBe("");
    return (outcome as StartupError).message;
  }

  it("serve --open of a missing file names the flag and the file", async () => {
    expect(await refusedStart(["--open", "/nonexistent/file.psd"])).toBe("--open /nonexistent/file.psd: no such file");
  });

  it("a port in use names the address, how to check for a running bridge and the flag to change it", async () => {
    const holder = createServer().listen(0, "127.0.0.1");
    await once(holder, "listening");
    const { port } = holder.address() as AddressInfo;
    try {
      const where = `127.0.0.1:${port}`;
      fatal(
        await runBin(["serve", "--listen", String(port)]),
        `${where} is already in use: another bridge may be running there (image-editor-bridge health --url http://${where}); choose another port with --listen <port>`,
      );
    } finally {
      holder.close();
    }
  });

  it("a missing GIMP binary names the binary, the install hint and the flag, instead of retrying forever", async () => {
    const hint = "install GIMP 2.10 (Debian/Ubuntu: apt install gimp) or point --gimp-binary (BRIDGE_GIMP_BINARY) at it";
    expect(await refusedStart(["--editor", "gimp", "--gimp-binary", "/nonexistent/gimp"])).toBe(`the GIMP binary "/nonexistent/gimp" was not found; ${hint}`);
    expect(await refusedStart(["--editor", "gimp"], { BRIDGE_GIMP_BINARY: "no-such-gimp" })).toBe(`the GIMP binary "no-such-gimp" was not found; ${hint}`);
  });

  it("--files-root, --plugin and --plugins-dir follow one rule: a folder that does not exist stops the bridge", async () => {
    fatal(await runBin(["serve", "--listen", "0", "--files-root", "/nonexistent/root"]), "--files-root /nonexistent/root: no such folder");
    expect(await refusedStart([], { BRIDGE_FILES_ROOT: "/nonexistent/env" })).toBe("--files-root /nonexistent/env: no such folder");
    expect(await refusedStart(["--plugin", "/nonexistent/one"])).toBe("--plugin /nonexistent/one: no such folder");
    expect(await refusedStart(["--plugins-dir", "/nonexistent/all"])).toBe("--plugins-dir /nonexistent/all: no such folder");
  });
});

describe("several editors on the command line", () => {
  const usage = (args: string[], env: NodeJS.ProcessEnv = {}) => () => parseServeArgs(["serve", ...args], env);

  it("--editors (or BRIDGE_EDITORS) is an integer from 1 to MAX_EDITORS (0 only in a cluster), 1 by default; the flag wins", () => {
    expect(parseServeArgs(["serve"], {})).toMatchObject({ editors: 1 });
    expect(parseServeArgs(["serve", "--editors", "3"], {})).toMatchObject({ editors: 3 });
    expect(parseServeArgs(["serve"], { BRIDGE_EDITORS: "2" })).toMatchObject({ editors: 2 });
    expect(parseServeArgs(["serve", "--editors", "4"], { BRIDGE_EDITORS: "2" })).toMatchObject({ editors: 4 });
    expect(parseServeArgs(["serve", "--editors", String(MAX_EDITORS)], {})).toMatchObject({ editors: MAX_EDITORS });
    for (const bad of [String(MAX_EDITORS + 1), "2.5", "two", "", "=-1"]) {
      const args = bad.startsWith("=") ? [`--editors${bad}`] : ["--editors", bad];
      expect(usage(args)).toThrow(UsageError);
      expect(usage(args)).toThrow(`--editors expects an integer from 1 to ${MAX_EDITORS}`);
    }
    // 0 is a cluster's front door: refused without a cluster.
    expect(usage(["--editors", "0"])).toThrow(/--editors 0 .* needs --cluster/);
    expect(usage([], { BRIDGE_EDITORS: "100" })).toThrow(/from 1 to 64 .*, got "100"/);
  });

  it("--photoshop-host is repeatable, each host[:port] with the port defaulting to --photoshop-port, IPv6 in brackets", () => {
    const args = ["--editor", "photoshop", "--photoshop-port", "49000", "--photoshop-host", "ps-a.local", "--photoshop-host", "10.0.0.2:5000"];
    args.push("--photoshop-host", "[fd00::7]:6000", "--photoshop-host", "[::1]", "--photoshop-host", "fe80::1");
    expect(parseServeArgs(["serve", ...args], {})).toMatchObject({
      editors: 5,
      photoshop: {
        hosts: [
          { host: "ps-a.local", port: 49000 },
          { host: "10.0.0.2", port: 5000 },
          { host: "fd00::7", port: 6000 },
          { host: "::1", port: 49000 },
          { host: "fe80::1", port: 49000 },
        ],
      },
    });
  });

  it("BRIDGE_PHOTOSHOP_HOST is comma-separated; without any host there is one Photoshop on 127.0.0.1", () => {
    const env = { BRIDGE_PHOTOSHOP_HOST: "a.local, b.local:7000", BRIDGE_PHOTOSHOP_PASSWORD: "pw" };
    expect(parseServeArgs(["serve", "--editor", "photoshop"], env)).toMatchObject({
      editors: 2,
      photoshop: { hosts: [{ host: "a.local", port: 49494 }, { host: "b.local", port: 7000 }], password: "pw" },
    });
    // A --photoshop-host adds to the variable's list.
    expect(parseServeArgs(["serve", "--editor", "photoshop", "--photoshop-host", "c.local"], env)).toMatchObject({
      photoshop: { hosts: [{ host: "a.local" }, { host: "b.local" }, { host: "c.local", port: 49494 }] },
    });
    expect(parseServeArgs(["serve", "--editor", "photoshop"], {})).toMatchObject({ editors: 1, photoshop: { hosts: [{ host: "127.0.0.1", port: 49494 }] } });
  });

  it("a malformed or repeated Photoshop host is a UsageError naming the flag", () => {
    for (const bad of ["a.local:99999", "a.local:http", "[::1", "[::1]:", "a.local:"]) {
      expect(usage(["--editor", "photoshop", "--photoshop-host", bad])).toThrow(`--photoshop-host expects host[:port] (IPv6 as [address]:port), got "${bad}"`);
    }
    expect(usage(["--editor", "photoshop"], { BRIDGE_PHOTOSHOP_HOST: "a:0" })).toThrow(/^BRIDGE_PHOTOSHOP_HOST expects/);
    expect(usage(["--editor", "photoshop", "--photoshop-host", "a.local", "--photoshop-host", "A.local:49494"])).toThrow(
      /--photoshop-host names A\.local:49494 twice/,
    );
  });

  it("--gimp-attach is repeatable (or BRIDGE_GIMP_ATTACH, comma-separated), each host:port: one editor per server", () => {
    expect(parseServeArgs(["serve", "--editor", "gimp", "--gimp-attach", "127.0.0.1:10008", "--gimp-attach", "[::1]:10009"], {})).toMatchObject({
      editors: 2,
      gimp: { binary: "gimp-console-2.10", attach: ["127.0.0.1:10008", "[::1]:10009"] },
    });
    expect(parseServeArgs(["serve", "--editor", "gimp"], { BRIDGE_GIMP_ATTACH: "a:1, b:2,c:3" })).toMatchObject({
      editors: 3,
      gimp: { attach: ["a:1", "b:2", "c:3"] },
    });
    expect(parseServeArgs(["serve", "--editor", "gimp", "--editors", "2"], {})).toMatchObject({ editors: 2, gimp: { attach: [] } });
    expect(usage(["--editor", "gimp", "--gimp-attach", "127.0.0.1"])).toThrow('--gimp-attach expects host:port (IPv6 as [address]:port), got "127.0.0.1"');
    expect(usage(["--editor", "gimp", "--gimp-attach", "a:1", "--gimp-attach", "a:1"])).toThrow(/names a:1 twice/);
  });

  it("--editors that does not match the servers given is a UsageError naming both", () => {
    expect(usage(["--editor", "gimp", "--editors", "3", "--gimp-attach", "a:1", "--gimp-attach", "b:2"])).toThrow(
      "--editors 3 does not match the 2 attached GIMP servers given with --gimp-attach: the bridge runs one editor per attached GIMP server, so leave --editors out or make it 2",
    );
    expect(usage(["--editor", "gimp"], { BRIDGE_EDITORS: "1", BRIDGE_GIMP_ATTACH: "a:1,b:2" })).toThrow(
      /^BRIDGE_EDITORS=1 does not match the 2 attached GIMP servers given with BRIDGE_GIMP_ATTACH/,
    );
    expect(usage(["--editor", "photoshop", "--editors", "2", "--photoshop-host", "a", "--photoshop-host", "b", "--photoshop-host", "c"])).toThrow(
      /^--editors 2 does not match the 3 Photoshop hosts given with --photoshop-host/,
    );
    expect(usage(["--editor", "photoshop", "--editors", "2"])).toThrow(
      /^--editors 2 does not match the 1 Photoshop host given with --photoshop-host \(default 127\.0\.0\.1\)/,
    );
    expect(parseServeArgs(["serve", "--editor", "gimp", "--editors", "2", "--gimp-attach", "a:1", "--gimp-attach", "b:2"], {})).toMatchObject({ editors: 2 });
    // The other editors' servers do not count: --editors is the embedded pool here.
    expect(parseServeArgs(["serve", "--editors", "3", "--gimp-attach", "a:1"], {})).toMatchObject({ editor: "embedded", editors: 3 });
  });

  it("a mismatch stops serve before anything starts", async () => {
    const argv = ["serve", "--listen", "127.0.0.1:0", "--log-level", "silent", "--editor", "gimp", "--editors", "2", "--gimp-attach", "127.0.0.1:1"];
    await expect(main(argv, { handleSignals: false, env: {} })).rejects.toThrow(UsageError);
  });

  it("--help describes --editors with the advice for the embedded editor", async () => {
    let printed = "";
    await main(["--help"], { handleSignals: false, env: {}, stdout: { write: (text: string) => (printed += text) } });
    expect(printed).toContain("--editors <n>");
    expect(printed).toContain("about one per core minus one");
    expect(printed).toContain("[BRIDGE_EDITORS]");
    expect(printed).toContain("--photoshop-host <h[:p]>");
    expect(printed).toContain("repeat for one editor per server");
  });

  it("serve --editors 2 runs two embedded editors, the sample on the first", async () => {
    let printed = "";
    const bridge = await main(["serve", "--listen", "127.0.0.1:0", "--log-level", "silent", "--editors", "2"], {
      handleSignals: false,
      env: {},
      stdout: { write: (text: string) => (printed += text) },
    });
    try {
      expect(bridge!.editors().map((e) => e.id)).toEqual(["embedded-1", "embedded-2"]);
      expect(printed).toMatch(/editor: embedded ×2 · document: Sample \(800×600\)/);
    } finally {
      await bridge!.close();
    }
  });
});
