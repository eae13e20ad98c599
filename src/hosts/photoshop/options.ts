import type { Filesystem } from "../../files/index.js";
import type { Logger } from "../../logger.js";
import type { PhotoshopLink } from "./link.js";
import type { PhotoshopLimits } from "./limits.js";

/** How to reach Photoshop over Remote Connections (`--editor photoshop`). */
export interface PhotoshopConnectOptions {
  host: string;
  port: number;
  /** The Remote Connections password; never logged. */
  password: string;
}

/** Options of `createPhotoshopHost`. */
export interface PhotoshopHostOptions extends PhotoshopConnectOptions {
  logger?: Logger | undefined;
  /** Overrides of `PHOTOSHOP_LIMITS` (frame cap, in-flight caps, keep-alive timing…). */
  limits?: Partial<PhotoshopLimits> | undefined;
}

/** Options of `createPhotoshopAdapter`. */
export interface PhotoshopAdapterOptions {
  /** How to reach Photoshop. */
  readonly link: PhotoshopLink;
  readonly logger?: Logger | undefined;
  /** Overrides of `PHOTOSHOP_LIMITS`. */
  readonly limits?: Partial<PhotoshopLimits> | undefined;
  /**
   * Whether Photoshop runs on this machine (Generator plugin, or Remote Connections to loopback) or elsewhere;
   * paths for a remote Photoshop can only be checked lexically against the files roots, and imports (handed to
   * Photoshop as a temporary file) are not available.
   * @default "local"
   */
  readonly filesystem?: Filesystem | undefined;
}
