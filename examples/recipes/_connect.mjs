// Shared by the recipes: the bridge's address from --url / BRIDGE_URL, and a connected SDK client.
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
