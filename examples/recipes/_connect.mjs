// Shared by the recipes: the bridge's address from --url / BRIDGE_URL, and a connected SDK client.
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

/** The bytes of a data URI (`data:image/png;base64,…`). */
export function bytesOf(dataUri) {
  return Buffer.from(dataUri.slice(dataUri.indexOf(",") + 1), "base64");
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
