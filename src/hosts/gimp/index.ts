import type { Logger } from "../../logger.js";
import type { HostAdapter } from "../host.js";
import type { GimpConnectOptions } from "../factory.js";

export interface GimpHostOptions extends GimpConnectOptions {
  scriptDirs?: readonly string[] | undefined;
  logger?: Logger | undefined;
}

// Placeholder until the gimp host lands.
export function createGimpHost(_options: GimpHostOptions): HostAdapter {
  throw new Error("the gimp host is not built yet");
}
