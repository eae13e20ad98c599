// Shared by the recipes: the bridge's address from --url / BRIDGE_URL, a connected SDK client, and the per-file loop.
import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import WebSocket from "ws";
import { Connection } from "image-editor-bridge/client";

/** `--url <url>` from the arguments, else BRIDGE_URL, else the default address; the other arguments are returned. */
export function parseArgs(argv) {
  const rest = [];
  let url = process.env.BRIDGE_URL ?? "http://127.0.0.1:7700";
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--url") url = argv[++i];
    else rest.push(argv[i]);
  }
  return { url, rest };
}

/** A connected client (Node 20 has no global WebSocket: the `ws` class is passed in). */
export async function connect(url) {
  const client = new Connection({ url, token: process.env.BRIDGE_TOKEN || undefined, WebSocket, name: "recipe" });
  await client.ready();
  return client;
}

/**
 * Runs `work(name)` for each file name in order; a failure is reported with its code and the next file goes on.
 * Closes the client at the end and sets the exit status: 0 when every file succeeded, else 1.
 */
export async function forEachFile(client, names, work) {
  let failed = 0;
  try {
    for (const name of names) {
      try {
        await work(name);
      } catch (error) {
        failed++;
        console.error(`${name}: ${error.code ?? "ERROR"} ${error.message}`);
      }
    }
  } finally {
    await client.close();
  }
  process.exitCode = failed === 0 ? 0 : 1;
}

/**
 * The two folders a folder-to-folder recipe takes (absolute; the output folder created), or the usage and exit 2.
 */
export async function inAndOutFolders(rest, usage) {
  if (rest.length !== 2) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  const [from, to] = rest.map((dir) => resolve(dir));
  await mkdir(to, { recursive: true });
  return [from, to];
}
