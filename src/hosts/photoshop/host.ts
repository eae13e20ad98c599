import type { Logger } from "../../logger.js";
import { isLoopbackHost } from "../../loopback.js";
import { silentLogger } from "../../logger.js";
import type { PhotoshopConnectOptions } from "../factory.js";
import type { HostAdapter } from "../host.js";
import { createPhotoshopAdapter } from "./adapter.js";
import { resolvePhotoshopLimits, type PhotoshopLimits } from "./limits.js";
import { RemoteLink } from "./remote-link.js";

/** Options of {@link createPhotoshopHost}. */
export interface PhotoshopHostOptions extends PhotoshopConnectOptions {
  /** Folders `jsx:execute` may run named scripts from (never outside them). @default [] */
  scriptDirs?: readonly string[] | undefined;
  logger?: Logger | undefined;
  /** Overrides of `PHOTOSHOP_LIMITS` (frame cap, in-flight caps, keep-alive timing…). */
  limits?: Partial<PhotoshopLimits> | undefined;
}

/**
 * Photoshop over Remote Connections (`--editor photoshop`): a TCP client of the framed, encrypted protocol.
 * The password is used only to derive the key and is never logged.
 *
 * @example
 * const host = createPhotoshopHost({ host: "127.0.0.1", port: 49494, password: process.env.BRIDGE_PHOTOSHOP_PASSWORD ?? "" });
 */
export function createPhotoshopHost(options: PhotoshopHostOptions): HostAdapter {
  const log = options.logger ?? silentLogger();
  const limits = resolvePhotoshopLimits(options.limits);
  const link = new RemoteLink({ host: options.host, port: options.port, password: options.password, limits, log });
  // Photoshop opens and writes paths on its own machine; only a loopback one shares this filesystem.
  const filesystem = isLoopbackHost(options.host) ? "local" : "remote";
  return createPhotoshopAdapter({ link, scriptDirs: options.scriptDirs, logger: log, limits, filesystem });
}
