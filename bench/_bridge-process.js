// A bridge alone in its own process, so that process's CPU time is the bridge's only: the load driver (clients,
// a browser) runs elsewhere. `bridge-process.js <json options>` is the child; `startBridgeProcess` the parent side.
import { fork } from "node:child_process";

/**
 * Starts `bench/bridge-process.js` with `options` for `createBridge` (listen is set to loopback, port 0); resolves
 * with its addresses, its CPU time so far (user + system, ms) and a way to close it.
 */
export function startBridgeProcess(options = {}) {
  const child = fork(new URL("./bridge-process.js", import.meta.url), [JSON.stringify(options)], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const replies = [];
  child.on("message", (message) => replies.shift()?.(message));
  const next = () => new Promise((resolve) => replies.push(resolve));
  return next().then(({ url, wsUrl }) => ({
    url,
    wsUrl,
    async cpuMs() {
      const wait = next();
      child.send("cpu");
      const { cpu } = await wait;
      return (cpu.user + cpu.system) / 1000;
    },
    close: () =>
      new Promise((resolve) => {
        child.once("exit", resolve);
        child.send("close");
      }),
  }));
}
