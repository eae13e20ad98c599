#!/usr/bin/env node
// Connects to a running bridge, calls a few methods, follows selection changes, and survives a dropped socket.
//
//   npm start                                  # in another terminal: a bridge on http://127.0.0.1:7700
//   node examples/client/node-example.mjs      # BRIDGE_URL / BRIDGE_TOKEN override the address and token
import WebSocket from "ws";
import { Connection, isBridgeError } from "image-editor-bridge/client";

// Node 20 has no global WebSocket, so the `ws` class is passed in. This subclass only remembers its sockets so
// the example can cut one like a failing network would; real programs pass `WebSocket` itself.
const sockets = [];
class TrackedWebSocket extends WebSocket {
  constructor(...args) {
    super(...args);
    sockets.push(this);
  }
}

const client = new Connection({
  url: process.env.BRIDGE_URL ?? "http://127.0.0.1:7700",
  token: process.env.BRIDGE_TOKEN || undefined,
  WebSocket: TrackedWebSocket,
});

client.on("$close", ({ code, willReconnect }) => console.log(`socket closed (${code}); reconnecting: ${willReconnect}`));
client.on("$reconnecting", ({ attempt, delayMs }) => console.log(`reconnect attempt ${attempt} in ${delayMs} ms`));
client.on("$open", ({ clientId, resumed, replayed }) => console.log(`open as ${clientId} (resumed: ${resumed}, replayed: ${replayed ?? 0})`));
client.on("$lost", ({ reason }) => console.log(`events were lost (${reason}): re-reading state`));

try {
  await client.ready();
  const info = await client.getServerInfo();
  const doc = await client.document.current();
  console.log(`${info.name} ${info.version}, editor ${info.editor}: "${doc.name}" ${doc.width}×${doc.height}`);

  const seen = [];
  let wake = () => {};
  await client.subscribe("selection:changed", (rect, { seq }) => {
    console.log(`#${seq} selection:`, rect);
    seen.push(rect);
    wake();
  });
  const until = (x) =>
    new Promise((resolve) => {
      wake = () => seen.some((r) => r?.x === x) && resolve();
      wake();
    });

  await client.selection.set({ rect: { x: 10, y: 10, width: 100, height: 80 } });
  await until(10);

  console.log("cutting the socket…");
  sockets.at(-1).terminate();
  // Sent once the connection is back; the event it causes arrives in order, with the next seq.
  await client.selection.set({ rect: { x: 20, y: 20, width: 50, height: 50 } });
  await until(20);

  try {
    await client.layer.getInfoById({ layerId: 999_999 });
  } catch (error) {
    if (!isBridgeError(error)) throw error;
    console.log(`expected failure: ${error.code} (retryable: ${error.retryable})`);
  }
} finally {
  await client.close(); // 4000: the bridge forgets this client at once
}
