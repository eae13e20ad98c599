import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runToExit, STARTUP_LINE } from "../helpers/until-started.js";
import WebSocket from "ws";
import { eventually } from "../helpers/gc.js";
import { parseServeArgs, startupWarnings, type ServeOptions } from "../../src/cli/args.js";
import { UsageError } from "../../src/cli/errors.js";

const BIN = fileURLToPath(new URL("../../bin/image-editor-bridge.js", import.meta.url));

/** Runs `image-editor-bridge serve …` configured by the environment, until its startup line; returns its JSON log lines. */
async function serveLogs(args: string[], env: Record<string, string>): Promise<Array<{ level: number; msg: string }>> {
  const child = spawn(process.execPath, [BIN, "serve", "--listen", "0", ...args], { env: { PATH: process.env["PATH"] ?? "", ...env }, stdio: "pipe" });
  const { stdout } = await runToExit(child, true);
  expect(stdout).toMatch(STARTUP_LINE);
  // Not a terminal: the log is JSON lines.
  return stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { level: number; msg: string });
}

/** pino's level number for warnings. */
const WARN = 40;

const serve = (args: string[], env: NodeJS.ProcessEnv = {}): ServeOptions => {
  const options = parseServeArgs(["serve", ...args], env);
  if (typeof options === "string") throw new Error(`expected serve options, got ${options}`);
  return options;
};

describe("serve configured by the environment", () => {
  it("every switch has a BRIDGE_* variable: 1/true/yes/on turn it on; 0/false/no/off or empty leave it off", () => {
    const off = serve([]);
    expect(off).toMatchObject({ sample: true, allowFileImport: true, backupOnOverwrite: true, allowAnyPath: false, allowEditorScripts: false, allowPrivateUrlImport: false });
    for (const on of ["1", "true", "YES", "on"]) {
      const env = {
        BRIDGE_NO_SAMPLE: on,
        BRIDGE_NO_FILE_IMPORT: on,
        BRIDGE_NO_BACKUP: on,
        BRIDGE_ALLOW_ANY_PATH: on,
        BRIDGE_ALLOW_EDITOR_SCRIPTS: on,
        BRIDGE_ALLOW_PRIVATE_IMPORT: on,
      };
      expect(serve([], env)).toMatchObject({ sample: false, allowFileImport: false, backupOnOverwrite: false, allowAnyPath: true, allowEditorScripts: true, allowPrivateUrlImport: true });
    }
    for (const no of ["0", "false", "no", "off", ""]) expect(serve([], { BRIDGE_NO_SAMPLE: no, BRIDGE_NO_BACKUP: no })).toMatchObject({ sample: true, backupOnOverwrite: true });
    // The flag turns a switch on whatever the variable says.
    expect(serve(["--no-sample"], { BRIDGE_NO_SAMPLE: "0" })).toMatchObject({ sample: false });
  });

  it("a switch variable with any other value is a usage error naming the variable and the values it takes", () => {
    expect(() => serve([], { BRIDGE_NO_BACKUP: "maybe" })).toThrow(UsageError);
    expect(() => serve([], { BRIDGE_NO_BACKUP: "maybe" })).toThrow('BRIDGE_NO_BACKUP expects one of 1, true, yes, on, 0, false, no, off, got "maybe"');
  });

  it("repeatable flags add to their variable's comma-separated list", () => {
    const env = {
      BRIDGE_ALLOW_ORIGIN: "https://a.example",
      BRIDGE_ALLOW_HOST: "a.local",
      BRIDGE_SCRIPTS_DIRS: "/s1",
      BRIDGE_FILES_ROOT: "/r1, /r2",
      BRIDGE_PLUGINS: "/p1",
    };
    const args = ["--allow-origin", "https://b.example", "--allow-host", "b.local", "--scripts-dir", "/s2", "--files-root", "/r3", "--plugin", "/p2"];
    expect(serve(args, env)).toMatchObject({
      allowOrigins: ["https://a.example", "https://b.example"],
      allowHosts: ["a.local", "b.local"],
      scriptDirs: ["/s1", "/s2"],
      filesRoots: ["/r1", "/r2", "/r3"],
      plugins: ["/p1", "/p2"],
    });
    expect(serve(["--editor", "photoshop", "--photoshop-host", "c.local"], { BRIDGE_PHOTOSHOP_HOST: "a.local,b.local:7000" })).toMatchObject({
      editors: 3,
      photoshop: { hosts: [{ host: "a.local" }, { host: "b.local", port: 7000 }, { host: "c.local" }] },
    });
    expect(serve(["--editor", "gimp", "--gimp-attach", "b:2"], { BRIDGE_GIMP_ATTACH: "a:1" })).toMatchObject({ editors: 2, gimp: { attach: ["a:1", "b:2"] } });
  });

  it("a bad item names where it came from, and a server given both ways is named twice", () => {
    expect(() => serve(["--editor", "gimp", "--gimp-attach", "b:2"], { BRIDGE_GIMP_ATTACH: "a" })).toThrow(/^BRIDGE_GIMP_ATTACH expects host:port/);
    expect(() => serve(["--editor", "gimp", "--gimp-attach", "b"], { BRIDGE_GIMP_ATTACH: "a:1" })).toThrow(/^--gimp-attach expects host:port/);
    expect(() => serve(["--editor", "gimp", "--gimp-attach", "a:1"], { BRIDGE_GIMP_ATTACH: "a:1" })).toThrow(
      /^BRIDGE_GIMP_ATTACH and --gimp-attach names a:1 twice/,
    );
  });
});

describe("limits and public health from the command line or the environment", () => {
  it("--limit and BRIDGE_LIMITS set named limits, with units for sizes and durations; a later flag wins", () => {
    expect(serve([]).limits).toEqual({});
    const options = serve(["--limit", "maxPayloadBytes=64MiB", "--limit", "call-timeout-ms=90s", "--limit", "mailboxDepth=512"], {
      BRIDGE_LIMITS: "maxPayloadBytes=1KiB, importMaxRedirects=0",
    });
    expect(options.limits).toEqual({ maxPayloadBytes: 64 * 1024 * 1024, callTimeoutMs: 90_000, mailboxDepth: 512, importMaxRedirects: 0 });
    expect(serve(["--limit", "resumeTtlMs=2min", "--limit", "editorMaxMemoryBytes=1.5GiB"]).limits).toEqual({
      resumeTtlMs: 120_000,
      editorMaxMemoryBytes: 1.5 * 1024 ** 3,
    });
  });

  it.each([
    [["--limit", "maxPayloadBytes"], "--limit expects name=value (e.g. maxPayloadBytes=64MiB), got \"maxPayloadBytes\""],
    [["--limit", "maxPayload=1"], '--limit "maxPayload" is not a limit; the limits are maxPayloadBytes, '],
    [["--limit", "maxPayloadBytes=-1"], '--limit maxPayloadBytes expects an integer of at least 1 (units: B, KiB, MiB, GiB), got "-1"'],
    [["--limit", "maxPayloadBytes=12s"], "--limit maxPayloadBytes expects an integer of at least 1 (units: B, KiB, MiB, GiB)"],
    [["--limit", "mailboxDepth=0"], '--limit mailboxDepth expects an integer of at least 1, got "0"'],
    [["--limit", "callTimeoutMs=1h"], "limit callTimeoutMs (3600000) must not exceed longCallTimeoutMs (120000)"],
  ])("a bad --limit %j is a usage error that says what is accepted", (args, message) => {
    expect(() => serve(args)).toThrow(UsageError);
    expect(() => serve(args)).toThrow(message);
  });

  it("a bad BRIDGE_LIMITS item names the variable", () => {
    expect(() => serve([], { BRIDGE_LIMITS: "heartbeatMs=soon" })).toThrow('BRIDGE_LIMITS heartbeatMs expects an integer of at least 1 (units: ms, s, min, h), got "soon"');
  });

  it("--public-health and BRIDGE_PUBLIC_HEALTH open /health and /ready", () => {
    expect(serve([]).publicHealth).toBe(false);
    expect(serve(["--public-health"]).publicHealth).toBe(true);
    expect(serve([], { BRIDGE_PUBLIC_HEALTH: "1" }).publicHealth).toBe(true);
  });

  it("BRIDGE_LIMITS reaches the running bridge: a frame over maxPayloadBytes closes the socket with 1009", async () => {
    const child = spawn(process.execPath, [BIN, "serve", "--listen", "0", "--log-level", "silent"], {
      env: { PATH: process.env["PATH"] ?? "", BRIDGE_LIMITS: "maxPayloadBytes=1KiB" },
      stdio: "pipe",
    });
    try {
      let stdout = "";
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
          const found = / · WebSocket (ws:\/\/\S+) · /.exec(stdout);
          if (found) resolve(found[1]!);
        });
        child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${stdout}`)));
      });
      const socket = new WebSocket(url);
      await once(socket, "open");
      const closed = once(socket, "close");
      socket.send(JSON.stringify({ id: "big", method: "getServerInfo", params: { pad: "x".repeat(2048) } }));
      const [code] = (await closed) as [number];
      expect(code).toBe(1009);
    } finally {
      child.kill("SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
    }
  });
});

describe("an editor that is not there", () => {
  it("an attached GIMP that does not answer is one warning with the way out, then retried quietly (debug) and shown in /ready", async () => {
    const server = createServer();
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const child = spawn(process.execPath, [BIN, "serve", "--listen", "0", "--editor", "gimp", "--gimp-attach", `127.0.0.1:${port}`, "--log-level", "debug"], {
      env: { PATH: process.env["PATH"] ?? "", BRIDGE_LIMITS: "reconnectInitialMs=20,reconnectMaxMs=40" },
      stdio: "pipe",
    });
    try {
      let stdout = "";
      const lines = (): Array<{ level: number; msg: string; err?: string }> =>
        stdout.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as { level: number; msg: string; err?: string });
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
          if (lines().filter((line) => line.msg === "editor still not reachable").length >= 3 && STARTUP_LINE.test(stdout)) resolve();
        });
        child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${stdout}`)));
      });
      const warnings = lines().filter((line) => line.level >= WARN);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.err).toBe(
        `no GIMP Script-Fu server answers at 127.0.0.1:${port} (--gimp-attach): start one in GIMP (Filters › Script-Fu › Start Server…, port ${port}) ` +
          "or leave out --gimp-attach to let the bridge start gimp-console-2.10 itself (apt install gimp)",
      );
      const url = / · (http:\/\/\S+) · /.exec(stdout)![1]!;
      const ready = await fetch(`${url}/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: "down", reasons: [{ component: "editors", message: expect.stringMatching(/^no editor is ready \(gimp /) }] });
    } finally {
      child.kill("SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
    }
  });
});

describe("signals", () => {
  it("a second SIGTERM during a graceful shutdown exits at once through the bridge's own handler (status 1, not 143)", async () => {
    const child = spawn(process.execPath, [BIN, "serve", "--listen", "0"], { env: { PATH: process.env["PATH"] ?? "" }, stdio: "pipe" });
    try {
      let stdout = "";
      const seen = (pattern: RegExp): Promise<RegExpExecArray> =>
        new Promise((resolve, reject) => {
          const check = (): void => {
            const found = pattern.exec(stdout);
            if (found) {
              child.stdout.off("data", check);
              resolve(found);
            }
          };
          child.stdout.on("data", check);
          child.once("exit", (code) => reject(new Error(`serve exited with ${code} before ${pattern}: ${stdout}`)));
          check();
        });
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      const url = (await seen(/ · WebSocket (ws:\/\/\S+) · /))[1]!;
      const socket = new WebSocket(url);
      await once(socket, "open");
      // A script that loops keeps the editor busy, so the graceful shutdown waits for it.
      socket.send(JSON.stringify({ id: "busy", method: "jsx:run", params: { script: "for(;;){}", timeoutMs: 60_000 } }));
      const statusUrl = `${url.replace(/^ws/, "http").replace(/\/ws$/, "")}/status`;
      await eventually(async () => ((await (await fetch(statusUrl)).json()) as { editor: { running: number } }).editor.running === 1, "the script to run");
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await seen(/"msg":"shutting down"/);
      child.kill("SIGTERM");
      const [code, signal] = (await exited) as [number | null, string | null];
      expect([code, signal]).toEqual([1, null]);
      expect(stdout).toContain('"msg":"second signal: exiting now"');
      socket.terminate();
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGKILL");
        await once(child, "exit");
      }
    }
  });
});

describe("startup warnings", () => {
  it("a token browsers cannot send as a WebSocket subprotocol is warned about; a token of token characters is not", () => {
    for (const token of ["with space", "quote\"d", "comma,sep", "naïve", "a/b"]) {
      expect(startupWarnings(serve(["--token", token]))).toEqual([expect.stringMatching(/^the token has characters a WebSocket subprotocol cannot carry/)]);
    }
    for (const token of ["abc123", "a-b.c_d~e", "Zx9!#$%&'*+^`|"]) expect(startupWarnings(serve(["--token", token]))).toEqual([]);
  });

  it("an empty Photoshop password is warned about, only for the Photoshop editor", () => {
    expect(startupWarnings(serve(["--editor", "photoshop"]))).toEqual([expect.stringMatching(/^the Photoshop password is empty/)]);
    expect(startupWarnings(serve(["--editor", "photoshop"], { BRIDGE_PHOTOSHOP_PASSWORD: "pw-123" }))).toEqual([]);
    expect(startupWarnings(serve([]))).toEqual([]);
  });

  it("BRIDGE_TOKEN='my token' image-editor-bridge serve logs the warning once, then serves", async () => {
    const logs = await serveLogs(["--log-level", "warn"], { BRIDGE_TOKEN: "my token" });
    expect(logs.filter((l) => l.level === WARN && l.msg.startsWith("the token has characters"))).toHaveLength(1);
  });

  it("image-editor-bridge serve --editor photoshop without BRIDGE_PHOTOSHOP_PASSWORD logs the warning, then serves", async () => {
    // Port 1 is closed: the bridge serves and keeps trying Photoshop in the background.
    const logs = await serveLogs(["--editor", "photoshop", "--photoshop-host", "127.0.0.1:1", "--log-level", "warn"], {});
    expect(logs.filter((l) => l.level === WARN && l.msg.startsWith("the Photoshop password is empty"))).toHaveLength(1);
  });
});
