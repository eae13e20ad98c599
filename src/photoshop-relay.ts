/*
 * The bridge's side of the Generator plugin's relay, for a Photoshop whose bundled Node is older than the bridge
 * needs (Node 20). `photoshop-plugin/main.cjs` runs inside generator-core; on an old Node it starts this file
 * under a system Node ≥ 20 and passes the generator's calls and events over the IPC channel, as JSON (the two
 * Nodes' structured-clone formats need not agree). Pixmap bytes travel as base64.
 *
 * Messages, parent → child: `start {config}`, `result {id, ok, value | error}`, `event {name, data}`, `close`.
 * Child → parent: `call {id, method, args}`, `on {name}`, `off {name}`, `log {level, message}`, `started {url,
 * wsUrl}`, `failed {error}`, `closed`.
 */
import type { GeneratorLike, GeneratorPixmap } from "./hosts/photoshop/generator-link.js";
import { type PluginConfig, startPlugin } from "./photoshop-plugin.js";

/** A generator method the relay forwards to the real generator. */
type RelayedMethod = "evaluateJSXString" | "getPixmap" | "getPhotoshopVersion";

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

type ParentMessage =
  | { readonly t: "start"; readonly config: PluginConfig }
  | { readonly t: "result"; readonly id: number; readonly ok: boolean; readonly value?: unknown; readonly error?: string }
  | { readonly t: "event"; readonly name: string; readonly data: unknown }
  | { readonly t: "close" };

const send = (message: Record<string, unknown>): void => {
  process.send?.(message);
};

/** The generator as the bridge sees it, each call answered by the real one in the parent process. */
function relayedGenerator(): { generator: GeneratorLike; receive(message: ParentMessage): void } {
  const pending = new Map<number, Pending>();
  const listeners = new Map<string, Set<(data: unknown) => void>>();
  const closeListeners: Array<() => void> = [];
  let nextId = 0;
  const call = (method: RelayedMethod, args: unknown[]): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      send({ t: "call", id, method, args });
    });
  const generator: GeneratorLike = {
    evaluateJSXString: (script, sharedEngineSafe) => call("evaluateJSXString", [script, sharedEngineSafe]),
    getPixmap: async (documentId, layerSpec, settings) => {
      const pixmap = (await call("getPixmap", [documentId, layerSpec, settings])) as Omit<GeneratorPixmap, "pixels"> & { pixels: string };
      return { ...pixmap, pixels: Buffer.from(pixmap.pixels, "base64") };
    },
    getPhotoshopVersion: () => call("getPhotoshopVersion", []).then(String),
    onPhotoshopEvent(name, listener) {
      let set = listeners.get(name);
      if (set === undefined) {
        set = new Set();
        listeners.set(name, set);
        send({ t: "on", name });
      }
      set.add(listener);
    },
    removePhotoshopEventListener(name, listener) {
      const set = listeners.get(name);
      if (set === undefined || !set.delete(listener) || set.size > 0) return;
      listeners.delete(name);
      send({ t: "off", name });
    },
    on(_event, listener) {
      closeListeners.push(listener);
      return generator;
    },
  };
  return {
    generator,
    receive(message) {
      if (message.t === "result") {
        const waiting = pending.get(message.id);
        pending.delete(message.id);
        if (message.ok) waiting?.resolve(message.value);
        else waiting?.reject(new Error(message.error ?? "the generator call failed"));
      } else if (message.t === "event") {
        for (const listener of [...(listeners.get(message.name) ?? [])]) listener(message.data);
      } else if (message.t === "close") {
        for (const error of pending.values()) error.reject(new Error("Photoshop closed the Generator connection"));
        pending.clear();
        for (const listener of closeListeners) listener();
      }
    },
  };
}

/** Runs the relay's child: waits for `start`, then serves until the parent says `close` or goes away. */
export function runRelayChild(): void {
  const relay = relayedGenerator();
  const logger = {
    info: (message: string, ...args: unknown[]) => send({ t: "log", level: "info", message, args: args.map(String) }),
    error: (message: string, ...args: unknown[]) => send({ t: "log", level: "error", message, args: args.map(String) }),
  };
  process.on("message", (message: ParentMessage) => {
    if (message.t !== "start") {
      relay.receive(message);
      return;
    }
    startPlugin(relay.generator, message.config, logger).then(
      (bridge) => {
        // After startPlugin's own listener began closing the bridge (the same close: it is shared).
        relay.generator.on("close", () => {
          void bridge.close("host-close").then(() => {
            send({ t: "closed" });
            process.exit(0);
          });
        });
        send({ t: "started", url: bridge.url, wsUrl: bridge.wsUrl });
      },
      (error: unknown) => send({ t: "failed", error: error instanceof Error ? error.message : String(error) }),
    );
  });
  // The plugin inside Photoshop is gone: so is the reason to run.
  process.on("disconnect", () => process.exit(0));
}

if (process.send !== undefined && process.argv.includes("--relay")) runRelayChild();
