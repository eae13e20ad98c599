import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { connect, createServer, type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CLIENT_USAGE, DEFAULT_BRIDGE_URL, EXIT_CODES } from "../../src/client/cli.js";
import { runCommand } from "../helpers/client-command.js";

const BIN = fileURLToPath(new URL("../../bin/image-editor-bridge.js", import.meta.url));
const README = new URL("../../README.md", import.meta.url);

async function runBin(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env["PATH"] ?? "" }, stdio: "pipe" });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stdout, stderr };
}


/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether something (a bridge a developer left running, say) already answers at the default address. */
async function defaultAddressTaken(): Promise<boolean> {
  const { hostname, port } = new URL(DEFAULT_BRIDGE_URL);
  const socket = connect(Number(port), hostname);
  const taken = await new Promise<boolean>((resolve) => {
    socket.once("connect", () => resolve(true));
    socket.once("error", () => resolve(false));
  });
  socket.destroy();
  return taken;
}

describe("the command line's own messages", () => {
  it("an unknown option is one line naming the option, the command and its help, with exit status 2", async () => {
    expect(await runCommand(["call", "document:current", "--bogus"])).toEqual({ code: 2, stdout: "", stderr: "image-editor-bridge: unknown option --bogus for call; see call --help\n" });
    expect(await runBin(["serve", "--bogus"])).toEqual({ code: 2, stdout: "", stderr: "image-editor-bridge: unknown option --bogus for serve; see serve --help\n" });
    expect(await runBin(["mcp", "--bogus"])).toEqual({ code: 2, stdout: "", stderr: "image-editor-bridge: unknown option --bogus for mcp; see help\n" });
  });

  it("the help lists every exit status the README lists", async () => {
    const readme = await readFile(README, "utf8");
    const sentence = /Exit status: (.+?)\.\s/s.exec(readme)?.[1]?.replace(/\s+/g, " ");
    const listed = [...(sentence ?? "").matchAll(/(?:^|, )(\d) /g)].map((m) => Number(m[1]));
    expect(listed).toEqual(Object.values(EXIT_CODES));
    const help = /^Exit status: (.+?)\.$/ms.exec(CLIENT_USAGE)?.[1]?.replace(/\s+/g, " ") ?? "";
    for (const code of listed) expect(help).toMatch(new RegExp(`(^|, )${code} `));
  });

  it("a bridge unreachable at the default address hints at --url and BRIDGE_URL; one named by --url does not", async () => {
    if (await defaultAddressTaken()) return; // something answers there: not the case this test is about
    const failed = await runCommand(["health"]);
    expect(failed.code).toBe(EXIT_CODES.UNAVAILABLE);
    expect(failed.stderr).toMatch(/^image-editor-bridge: CONNECTION_FAILED: [\s\S]+\n {2}no bridge answers at http:\/\/127\.0\.0\.1:7700, the default: start one \(image-editor-bridge serve\), or give yours with --url or BRIDGE_URL\n$/);
    const named = await runCommand(["health", "--url", `http://127.0.0.1:${await closedPort()}`]);
    expect(named.code).toBe(EXIT_CODES.UNAVAILABLE);
    expect(named.stderr).not.toContain("--url");
  });
});
