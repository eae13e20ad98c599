import type { Logger } from "../../logger.js";
import type { HostAdapter } from "../host.js";
import type { PhotoshopConnectOptions } from "../factory.js";

export interface PhotoshopHostOptions extends PhotoshopConnectOptions {
  scriptDirs?: readonly string[] | undefined;
  logger?: Logger | undefined;
}

// Placeholder until the photoshop host lands.
export function createPhotoshopHost(_options: PhotoshopHostOptions): HostAdapter {
  throw new Error("the photoshop host is not built yet");
}
