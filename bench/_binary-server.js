// The bridge of bench/binary.js, alone in its own process so its CPU time is the bridge's only (the load driver
// reads answers in the parent; the embedded editor, which encodes the PNG the same way for both, has its own).
// Opens the file named by its first argument. Answers the parent's IPC messages: "cpu" → process.cpuUsage(),
// "close" → closes the bridge and exits.
import { createBridge } from "../dist/index.js";

const bridge = createBridge({ listen: { host: "127.0.0.1", port: 0 }, embedded: { open: process.argv[2] } });
await bridge.start();
process.on("message", async (message) => {
  if (message === "cpu") process.send({ cpu: process.cpuUsage() });
  if (message === "close") {
    await bridge.close();
    process.exit(0);
  }
});
process.send({ ready: true, wsUrl: bridge.wsUrl });
