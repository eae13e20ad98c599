import { createBridge, type Bridge } from "./bridge/bridge.js";
import { parseListen } from "./cli/addresses.js";
import { createPhotoshopAdapter } from "./hosts/photoshop/index.js";
import { GeneratorLink, type GeneratorLike } from "./hosts/photoshop/generator-link.js";
import { resolvePhotoshopLimits } from "./hosts/photoshop/limits.js";
import { createLogger } from "./logger.js";

/**
 * How long the bridge waits for running calls when Photoshop goes away: generator-core's `app.js` exits about a
 * second after the link closes (reference A "Lifecycle"), so `#closing` and the last answers must flush before.
 */
export const PLUGIN_SHUTDOWN_GRACE_MS = 500;

/** The plugin's part of the Generator config (`config["image-editor-bridge"]` in `~/generator.json`). */
export interface PluginConfig {
  /** `host:port` to listen on. @default "127.0.0.1:7700" */
  listen?: string;
  /** Access token (required off loopback). */
  token?: string;
  /** Folders `jsx:execute` may run named scripts from. */
  scriptDirs?: string[];
  /** Folders every path a client sends must lie inside (`--files-root`); required off loopback with a token. */
  filesRoots?: string[];
  /** Let `jsx:run`/`jsx:execute` run while `filesRoots` confine file access (`--allow-editor-scripts`). */
  allowEditorScripts?: boolean;
  /** @default "info" */
  logLevel?: string;
  /** Installed package folder, when the plugin folder was copied out of it (read by `main.cjs`). */
  packageDir?: string;
  /**
   * A Node ≥ 20 to run the bridge under when Photoshop's bundled Node is older (read by `main.cjs`, which then
   * relays the generator to it). @default `node` on the PATH
   */
  nodePath?: string;
  /** Force the relay on (`true`) or off (`false`); by default it is used when the bundled Node is older than 20. */
  relay?: boolean;
}

/** generator-core's plugin logger (printf-style). */
export interface GeneratorLogger {
  info(message: string, ...args: unknown[]): void;
  error(message: string, ...args: unknown[]): void;
}

/**
 * Starts the bridge inside generator-core (called by `photoshop-plugin/main.cjs`): scripts run through the
 * generator's own connection, and when Photoshop goes away the bridge closes with `#closing {reason: "host-close"}`.
 */
export async function startPlugin(generator: GeneratorLike, config: PluginConfig, logger: GeneratorLogger): Promise<Bridge> {
  const limits = resolvePhotoshopLimits();
  const link = new GeneratorLink(generator, limits.maxPixmapEdge);
  const log = createLogger({ level: config.logLevel ?? "info", pretty: false });
  const host = createPhotoshopAdapter({ link, logger: log, limits });
  const bridge = createBridge({
    host,
    scriptDirs: config.scriptDirs ?? [],
    listen: parseListen(config.listen ?? "127.0.0.1:7700"),
    ...(config.token ? { token: config.token } : {}),
    limits: { shutdownGraceMs: PLUGIN_SHUTDOWN_GRACE_MS },
    logger: log,
    files: { roots: config.filesRoots ?? [], allowEditorScripts: config.allowEditorScripts ?? false },
  });
  generator.on("close", () => {
    logger.info("Photoshop went away; closing the bridge");
    void bridge.close("host-close");
  });
  const exit = (): void => {
    void bridge.close("process-exit");
  };
  process.once("SIGTERM", exit);
  // However the bridge closes (Photoshop went away, the plugin host closed it), the listener goes with it: a
  // Generator process that starts the plugin again must not close a bridge that is already gone.
  const close = bridge.close;
  bridge.close = (reason) => {
    process.removeListener("SIGTERM", exit);
    return close(reason);
  };
  await bridge.start();
  logger.info("image-editor-bridge listening on %s", bridge.url);
  return bridge;
}
