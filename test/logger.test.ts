import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LOG_FLUSH_CHARS } from "../src/logger.js";

const LOGGER = fileURLToPath(new URL("../dist/logger.js", import.meta.url));

/** Runs `body` in a child Node process with `log` (the bridge's logger, not pretty) in scope; its stdout lines, parsed. */
function child(body: string): { lines: Promise<Array<Record<string, unknown>>>; proc: ReturnType<typeof spawn>; firstLine: Promise<void> } {
  const proc = spawn(process.execPath, ["--input-type=module", "-e", `import { createLogger } from ${JSON.stringify(LOGGER)};\nconst log = createLogger({ pretty: false });\n${body}`], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let seen: () => void = () => {};
  const firstLine = new Promise<void>((resolve) => (seen = resolve));
  proc.stdout!.on("data", (chunk: Buffer) => {
    out += String(chunk);
    if (out.includes("\n")) seen();
  });
  const lines = once(proc, "exit").then(() =>
    out
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>),
  );
  return { lines, proc, firstLine };
}

describe("the bridge's log destination (lines batched, each batch one synchronous write)", () => {
  it("a line logged by a process that stays up is written without anything else being logged", async () => {
    const run = child(`log.info("alone"); setInterval(() => {}, 1000);`);
    await run.firstLine;
    run.proc.kill("SIGKILL");
    expect((await run.lines).map((l) => l.msg)).toEqual(["alone"]);
  });

  it("lines still held when the process exits are written, in order", async () => {
    // 2 kB lines: a megabyte in all, more than a pipe holds, so writes are still going on when the process exits
    const run = child(`for (let i = 0; i < 500; i++) log.info({ i, pad: "x".repeat(2000) }, "line"); process.exit(0);`);
    const lines = await run.lines;
    expect(lines.map((l) => l.i)).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });

  it("a batch leaves before the logging call returns, so no write is still in flight for an exit to overtake", async () => {
    // stdout is a file here: its size, read right after the batch past LOG_FLUSH_CHARS was handed over, shows the write
    const dir = await mkdtemp(join(tmpdir(), "ieb-log-"));
    try {
      const out = await open(join(dir, "out.log"), "w");
      const body = `import { fstatSync } from "node:fs";
const { LOG_FLUSH_CHARS } = await import(${JSON.stringify(LOGGER)});
let logged = 0;
while (logged < LOG_FLUSH_CHARS) { log.info({ pad: "x".repeat(1000) }, "line"); logged += 1000; }
process.stderr.write(String(fstatSync(1).size));`;
      const proc = spawn(process.execPath, ["--input-type=module", "-e", `import { createLogger } from ${JSON.stringify(LOGGER)};\nconst log = createLogger({ pretty: false });\n${body}`], {
        stdio: ["ignore", out.fd, "pipe"],
      });
      let err = "";
      proc.stderr!.on("data", (chunk: Buffer) => (err += String(chunk)));
      await once(proc, "exit");
      await out.close();
      expect(Number(err)).toBeGreaterThanOrEqual(LOG_FLUSH_CHARS);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a fatal error's exit still writes the lines logged before it", async () => {
    const run = child(`log.info("before"); log.warn({ n: 2 }, "second"); throw new Error("boom");`);
    const lines = await run.lines;
    expect(run.proc.exitCode).not.toBe(0);
    expect(lines.map((l) => l.msg)).toEqual(["before", "second"]);
  });
});
