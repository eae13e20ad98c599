// The child of `_bridge-process.js`: a bridge made with the options in its first argument (JSON), answering the
// parent's IPC messages: "cpu" → process.cpuUsage(), "close" → closes the bridge and exits.
import { createBridge } from "../dist/index.js";

const options = JSON.parse(process.argv[2] ?? "{}");
const bridge = createBridge({ ...options, listen: { host: "127.0.0.1", port: 0 } });
await bridge.start();
process.on("message", async (message) => {
  if (message === "cpu") process.send({ cpu: process.cpuUsage() });
  if (message === "close") {
    await bridge.close();
    process.exit(0);
  }
});
process.send({ url: bridge.url, wsUrl: bridge.wsUrl });
