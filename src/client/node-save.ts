import { writeFile } from "node:fs/promises";
import type { BridgeImage } from "./image.js";

/*
 * Node only: writing an image to a file. Not exported by the browser SDK entry (`image-editor-bridge/client`);
 * Node programs import it from `image-editor-bridge`.
 */

/**
 * Writes an image's encoded bytes to `path` as they came from the bridge (replacing the file). Rejects with the
 * file system's error (`ENOENT` for a missing folder, `EACCES`…).
 *
 * @example
 * import { saveTo } from "image-editor-bridge";
 * await saveTo(await client.image.exportDocument({ format: "png" }), "out.png");
 */
export async function saveTo(image: Pick<BridgeImage, "bytes">, path: string): Promise<void> {
  await writeFile(path, image.bytes);
}
