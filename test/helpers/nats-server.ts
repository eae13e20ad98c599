import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Whether Debian's `nats-server` is installed (`.ci/run` installs it); the cluster suites skip without it. */
export const hasNatsServer = spawnSync("nats-server", ["--version"], { stdio: "ignore" }).status === 0;
if (!hasNatsServer) {
  // Said where the skipped suites are reported, so a skip is never mistaken for a pass.
  console.warn("cluster suites skipped: nats-server is not installed (Debian: apt-get install nats-server; .ci/run installs it)");
}

/** A real `nats-server -js` on loopback, on a free port (kept across `restart()`), with its JetStream store in a temp folder. */
export interface NatsServer {
  readonly url: string;
  readonly port: number;
  /** Kills it (SIGKILL: as a crash would) and waits for it to be gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port with the same store. */
  restart(): Promise<void>;
  /** Stops it and removes its store. */
  stop(): Promise<void>;
}

async function run(port: number, store: string, extra: readonly string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn("nats-server", ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", store, ...extra], { stdio: ["ignore", "ignore", "pipe"] });
  const listening = await new Promise<number>((resolve, reject) => {
    let text = "";
    const onData = (chunk: Buffer): void => {
      text += chunk.toString();
      const match = /Listening for client connections on 127\.0\.0\.1:(\d+)/.exec(text);
      if (match !== null) {
        child.stderr!.off("data", onData);
        child.stderr!.resume();
        resolve(Number(match[1]));
      }
    };
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`nats-server exited with ${code}: ${text}`)));
  });
  return { child, port: listening };
}

/** @param extra more `nats-server` options: authorization (`--user`, `--pass`, `--auth`), TLS (`--tls…`). */
export async function startNatsServer(extra: readonly string[] = []): Promise<NatsServer> {
  const store = await mkdtemp(join(tmpdir(), "bridge-nats-"));
  let current = await run(-1, store, extra);
  const port = current.port;
  const kill = async (): Promise<void> => {
    const { child } = current;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await gone;
  };
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    kill,
    restart: async () => {
      await kill();
      current = await run(port, store, extra);
    },
    stop: async () => {
      await kill();
      await rm(store, { recursive: true, force: true });
    },
  };
}
