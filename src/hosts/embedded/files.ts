import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, extname, resolve } from "node:path";
import { BridgeError } from "../../protocol/index.js";
import { decodeImage } from "./decode.js";
import type { DocumentContent } from "./document.js";
import { ContentBuilder } from "./document.js";
import { formatForExtension } from "./encode.js";
import { parsePsd } from "./psd.js";

/** Extensions `openDocument` reads. */
export const OPENABLE_EXTENSIONS: readonly string[] = [".psd", ".psb", ".png", ".jpg", ".jpeg", ".webp"];

/** A file read into document content. */
export interface OpenedFile {
  readonly content: DocumentContent;
  readonly name: string;
  readonly filePath: string;
}

/**
 * Reads a PSD (layers kept) or a PNG/JPEG/WebP (one `Background` layer).
 * @throws BridgeError `BAD_REQUEST` (with `details.path`) for a missing, unreadable or unsupported file,
 * `PAYLOAD_TOO_LARGE` above `maxPixels`.
 */
export async function readDocumentFile(path: string, maxPixels: number): Promise<OpenedFile> {
  const filePath = resolve(path);
  const ext = extname(filePath).toLowerCase();
  if (!OPENABLE_EXTENSIONS.includes(ext)) {
    throw new BridgeError("BAD_REQUEST", `Cannot open "${ext || "no extension"}" files; use ${OPENABLE_EXTENSIONS.join(", ")}`, {
      details: { path, extension: ext },
    });
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(filePath);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const message = code === "ENOENT" ? `No such file: ${filePath}` : `Cannot read ${filePath} (${code ?? "error"})`;
    throw new BridgeError("BAD_REQUEST", message, { details: { path, reason: code ?? "unreadable" }, cause });
  }
  const name = basename(filePath);
  if (ext === ".psd" || ext === ".psb") return { content: parsePsd(bytes, { maxPixels, path }), name, filePath };
  const { raster, density } = await decodeImage(bytes, { maxPixels, details: { path } });
  const builder = new ContentBuilder(raster.width, raster.height, density && density > 0 ? density : 72);
  const background = builder.pixel("Background", raster, { kind: "background" });
  return { content: builder.build([background], [background.id]), name, filePath };
}

/**
 * Writes through a temporary file and a rename, so a failed write never leaves a half-written file in place
 * of a good one.
 */
export async function writeFileAtomic(path: string, bytes: Uint8Array): Promise<void> {
  const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    await writeFile(temp, bytes);
    await rename(temp, path);
  } catch (cause) {
    await rm(temp, { force: true });
    throw new BridgeError("BAD_REQUEST", `Cannot write ${path} (${(cause as NodeJS.ErrnoException).code ?? "error"})`, {
      details: { path },
      cause,
    });
  }
}

/**
 * Checks a `saveDocument` path: absolute, `.psd`.
 * @throws BridgeError `BAD_REQUEST` for another extension (pointing at `document:export`).
 */
export function psdSavePath(path: string): string {
  const filePath = resolve(path);
  if (extname(filePath).toLowerCase() !== ".psd") {
    const hint = formatForExtension(extname(filePath)) ? "; use document:export for flattened images" : "";
    throw new BridgeError("BAD_REQUEST", `The embedded editor saves layered documents as .psd only${hint}`, { details: { path } });
  }
  return filePath;
}
