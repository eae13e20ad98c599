import type { Logger } from "../logger.js";
import type { GimpConnectOptions } from "./gimp/index.js";
import type { HostAdapter } from "./host.js";
import type { PhotoshopConnectOptions } from "./photoshop/index.js";

export type { GimpConnectOptions } from "./gimp/index.js";
export type { PhotoshopConnectOptions } from "./photoshop/index.js";

export interface EditorHostOptions {
  editor: "photoshop" | "gimp";
  photoshop: PhotoshopConnectOptions;
  gimp: GimpConnectOptions;
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
    return createPhotoshopHost({ ...options.photoshop, logger: options.logger });
  }
  const { createGimpHost } = await import("./gimp/index.js");
  const sample = options.sample && options.gimp.attach === undefined;
  return createGimpHost({ ...options.gimp, sample, logger: options.logger });
}
