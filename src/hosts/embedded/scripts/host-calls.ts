import { z } from "zod";
import { checkEncodable, exportDocumentFile, resolveOpenPath, saveDocumentFile } from "../../../files/index.js";
import { BridgeError } from "../../../protocol/errors.js";
import { CutoutMethodSchema, FileFormatSchema, ImageFormatSchema } from "../../../protocol/resources.js";
import type { EncodedImage, HostCallContext } from "../../host.js";
import { previewSize } from "../../_internal/target-size.js";
import type { EmbeddedDocument } from "../document.js";
import { activeEntries, requireLayer } from "../tree.js";
import type { ScriptEnv } from "./env.js";
import { LayerArgs, docId, filePath, layerId, parse } from "./args.js";
import { pixelLayer } from "./edits.js";

/** The script API's `exportImage` answer: the guest has no binary type, so it gets a data URI. */
function dataUri(image: EncodedImage): string {
  const { bytes } = image;
  return `data:image/${image.format};base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")}`;
}

/**
 * The layer `selectSubject()` works on when the script names none: the document's first active layer.
 * @throws BridgeError `LAYER_NOT_FOUND` when no layer is active.
 */
function activeLayerId(doc: EmbeddedDocument, op: string): number {
  const entry = activeEntries(doc)[0];
  if (!entry) {
    throw new BridgeError("LAYER_NOT_FOUND", `${op} needs a layer: document ${doc.id} has no active layer`, { details: { op, documentId: doc.id } });
  }
  return entry.layer.id;
}

const FileExportArgs = z
  .object({
    doc: docId,
    path: filePath,
    format: FileFormatSchema.optional(),
    quality: z.number().int().min(1).max(100).optional(),
    overwrite: z.boolean().optional(),
  })
  .strict();
const ImageArgs = z
  .object({
    doc: docId,
    format: ImageFormatSchema.optional(),
    quality: z.number().int().min(1).max(100).optional(),
    maxSize: z.number().int().min(1).max(16384).optional(),
  })
  .strict();

/**
 * The script API's asynchronous operations. They go through the editor's own `HostAdapter` operations and the
 * bridge's file rules (`src/files`), exactly as the wire methods do: files roots, no silent loss on save, no export
 * over an open document's source. `ctx` is the run's call context (its abort signal).
 */
export function hostCalls(env: ScriptEnv, ctx: HostCallContext): Record<string, (args: unknown, op: string) => Promise<unknown>> {
  const { store, host, files } = env;
  return {
    "app.open": async (args, op) => {
      const { path } = parse(z.object({ path: filePath }).strict(), op, args);
      if (!host.openDocument) throw new BridgeError("NOT_SUPPORTED", "Opening files is not supported", { details: { capability: "document:open" } });
      return (await host.openDocument(ctx, (await resolveOpenPath(files, host, path)).path)).id;
    },
    "doc.save": async (args, op) => {
      const { doc, path, allowLossy, backup } = parse(
        z.object({ doc: docId, path: filePath.optional(), allowLossy: z.boolean().optional(), backup: z.boolean().optional() }).strict(),
        op,
        args,
      );
      return saveDocumentFile(host, ctx, files, { documentId: doc, savePath: path, allowLossy, backupOnOverwrite: backup });
    },
    "selection.selectSubject": async (args, op) => {
      const { doc, layer, method } = parse(z.object({ doc: docId, layer: layerId.optional(), method: CutoutMethodSchema.optional() }).strict(), op, args);
      if (!host.autoCutout) throw new BridgeError("NOT_SUPPORTED", "Select Subject is not supported", { details: { capability: "action:autoCutout" } });
      return host.autoCutout(ctx, { documentId: doc, layerId: layer ?? activeLayerId(store.get(doc), op), method });
    },
    "layer.removeBackground": async (args, op) => {
      const { doc, layer, method } = parse(LayerArgs.extend({ method: CutoutMethodSchema.optional() }), op, args);
      if (!host.removeBackground) {
        throw new BridgeError("NOT_SUPPORTED", "Remove Background is not supported", { details: { capability: "action:removeBackground" } });
      }
      pixelLayer(requireLayer(store.get(doc), layer), op);
      // Scripts get whether a subject was found, as Photoshop's own scripts do.
      const outcome = await host.removeBackground(ctx, { documentId: doc, layerId: layer, method });
      return typeof outcome === "boolean" ? outcome : outcome.success;
    },
    "doc.exportFile": async (args, op) => {
      const { doc, path, format, quality, overwrite } = parse(FileExportArgs, op, args);
      return exportDocumentFile(host, ctx, files, { documentId: doc, path, format, quality, overwrite });
    },
    "doc.exportImage": async (args, op) => {
      const { doc: id, format = "png", quality, maxSize } = parse(ImageArgs, op, args);
      const doc = store.get(id);
      const size = previewSize(doc.width, doc.height, maxSize ?? Math.max(doc.width, doc.height));
      checkEncodable(format, size);
      const image = await host.exportDocumentImage(ctx, { documentId: id, format, quality, size });
      return { data: dataUri(image), format: image.format, width: image.width, height: image.height };
    },
  };
}
