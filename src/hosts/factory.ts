import type { Logger } from "../logger.js";
import type { HostAdapter } from "./host.js";

/** How to reach Photoshop over Remote Connections (`--editor photoshop`). */
export interface PhotoshopConnectOptions {
  host: string;
  port: number;
  /** The Remote Connections password; never logged. */
  password: string;
}

/** How to run or reach GIMP (`--editor gimp`). */
export interface GimpConnectOptions {
  /** The GIMP console binary the bridge starts and supervises. */
  binary: string;
  /** `host:port` of a Script-Fu server already running; the bridge then starts no GIMP of its own. */
  attach: string | undefined;
}

export interface EditorHostOptions {
  editor: "photoshop" | "gimp";
  photoshop: PhotoshopConnectOptions;
  gimp: GimpConnectOptions;
  /** Folders `jsx:execute` may run named scripts from. */
  scriptDirs: readonly string[];
  /** Open the sample document (GIMP started by the bridge only: an attached GIMP's images are the user's). */
  sample: boolean;
  logger: Logger;
}

/**
 * Creates the adapter of a third-party editor. Loaded on demand so the embedded editor's start pays nothing
 * for the others.
 */
export async function createEditorHost(options: EditorHostOptions): Promise<HostAdapter> {
  if (options.editor === "photoshop") {
    const { createPhotoshopHost } = await import("./photoshop/index.js");
    return createPhotoshopHost({ ...options.photoshop, scriptDirs: options.scriptDirs, logger: options.logger });
  }
  const { createGimpHost } = await import("./gimp/index.js");
  const sample = options.sample && options.gimp.attach === undefined;
  return createGimpHost({ ...options.gimp, sample, scriptDirs: options.scriptDirs, logger: options.logger });
}
