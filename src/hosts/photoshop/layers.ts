import sharp from "sharp";
import type { Filesystem } from "../../files/index.js";
import type { HostAdapter, HostCallContext, ImportLayerOptions } from "../host.js";
import type { RunOperation } from "./operations.js";
import type { Revisions } from "./revisions.js";
import { withTempPng } from "./temp-file.js";

/** What the layer operations need from the adapter. */
export interface LayerDeps {
  readonly run: RunOperation;
  /** An import adds a layer: the document's revision rises. */
  readonly revisions: Revisions;
  /** Where Photoshop reads files: imports need it to read this machine's temporary files. */
  readonly filesystem: Filesystem;
}

/**
 * Photoshop opens files, not bytes: the image goes to Photoshop as a private temporary PNG of exactly the layer's
 * size, which `layer.place` copies into the document; the file is removed afterwards whatever happened. This only
 * works where Photoshop shares this machine's filesystem.
 */
async function importLayer(run: RunOperation, revisions: Revisions, ctx: HostCallContext, options: ImportLayerOptions): Promise<number> {
  const { documentId, image, size, position, name, aboveLayerId } = options;
  let pixels = sharp(image.bytes);
  if (size.width !== image.width || size.height !== image.height) pixels = pixels.resize(size.width, size.height, { fit: "fill" });
  const png = await pixels.png().toBuffer();
  return withTempPng("import", png, async (path) => {
    const placed = await revisions.change(documentId, () =>
      run<number>(ctx.signal, "layer.place", { documentId, path, name, x: position.x, y: position.y, aboveLayerId }),
    );
    return placed.result;
  });
}

/** Photoshop's layer operations; `importLayer` only when Photoshop reads this machine's files (`local`). */
export function layerOps({ run, filesystem, revisions }: LayerDeps): Pick<HostAdapter, "selectLayers" | "importLayer"> {
  return {
    async selectLayers(ctx, { documentId, ids }) {
      await run<null>(ctx.signal, "layer.select", { documentId, ids: [...new Set(ids)] });
    },
    ...(filesystem === "local" ? { importLayer: (ctx: HostCallContext, options: ImportLayerOptions) => importLayer(run, revisions, ctx, options) } : {}),
  };
}
