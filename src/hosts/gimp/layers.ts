import { writeFile } from "node:fs/promises";
import sharp from "sharp";
import { BridgeError } from "../../protocol/index.js";
import type { HostAdapter } from "../host.js";
import type { GimpSession } from "./connection.js";
import { asNumber, int, lit } from "./scheme.js";
import { writeXcfLayer } from "./xcf.js";

type LayerOps = Required<Pick<HostAdapter, "selectLayers" | "importLayer">>;

/** Making a layer active, and placing an image as a new layer. */
export function layerOps(session: GimpSession): LayerOps {
  return {
    async selectLayers(ctx, { documentId, ids }): Promise<void> {
      const unique = [...new Set(ids)];
      if (unique.length !== 1) {
        throw new BridgeError("NOT_SUPPORTED", "GIMP 2.10 has exactly one active layer; pass one id", {
          details: { capability: "layer:select:multiple", editor: "gimp", ids: unique.length },
        });
      }
      const layer = int(unique[0]!);
      await session.call(ctx, `(gimp-image-set-active-layer ${int(documentId)} (br-layer ${int(documentId)} ${layer}))`);
    },

    async importLayer(ctx, { documentId, image, size, position, name, aboveLayerId }): Promise<number> {
      // GIMP only ever loads pixels sharp decoded, of exactly the layer's size, with alpha, as XCF (GIMP's core
      // loads it; a PNG would start the file-png plug-in, a process per load).
      let xcf: Buffer;
      try {
        const { data, info } = await sharp(image.bytes)
          .ensureAlpha()
          .resize(size.width, size.height, { fit: "fill" })
          .raw()
          .toBuffer({ resolveWithObject: true });
        xcf = await writeXcfLayer({ width: info.width, height: info.height, data });
      } catch (cause) {
        throw new BridgeError("BAD_REQUEST", "The image could not be decoded", { details: { format: image.format }, cause });
      }
      return session.scratch(".xcf", async (file) => {
        await writeFile(file, xcf);
        const [x, y] = [Math.round(position.x), Math.round(position.y)];
        const form = `(br-import ${int(documentId)} ${lit(file)} ${int(aboveLayerId ?? -1)} ${lit(name)} ${int(x)} ${int(y)})`;
        return asNumber(await session.call(ctx, form, "BAD_REQUEST"), "layer id");
      });
    },
  };
}
