import { basename, extname } from "node:path";
import { formatForExtension, readRegularFile } from "../../files/index.js";
import { BridgeError } from "../../protocol/errors.js";
import { decodeImage } from "./decode.js";
import type { DocumentContent, DocumentSource } from "./document.js";
import { ContentBuilder } from "./document.js";
import { parsePsd } from "./psd.js";
import type { Stages } from "./work.js";

/** Extensions `openDocument` reads. */
export const OPENABLE_EXTENSIONS: readonly string[] = [".psd", ".psb", ".png", ".jpg", ".jpeg", ".webp"];

/** Extensions `saveDocument` writes: layered PSD, or PSB for large documents. */
export const SAVABLE_EXTENSIONS: readonly string[] = [".psd", ".psb"];


/** A file read into document content. */
export interface OpenedFile {
  readonly content: DocumentContent;
  readonly name: string;
  readonly filePath: string;
  readonly source: DocumentSource;
}

export interface ReadDocumentOptions {
  /** Largest canvas, and largest layer of a PSD. */
  readonly maxPixels: number;
  /** Deepest group nesting of a PSD. @default DEFAULT_MAX_PSD_GROUP_DEPTH */
  readonly maxGroupDepth?: number | undefined;
  /** Largest file read (checked on its size before reading). */
  readonly maxBytes: number;
  /** The files roots the path was resolved inside (see `readRegularFile`). @default none */
  readonly within?: readonly string[] | null | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Hears "reading", "parsing"/"decoding" and "building layers": {@link OPEN_UNITS} units; may throw to stop. */
  readonly stages?: Stages | undefined;
  /**
   * Told the bytes the reading is about to hold, before it allocates them: the file once read, then the pixels
   * its headers declare. Throws (the editor's memory budget) to refuse the open. @default nothing is charged
   */
  readonly charge?: ((bytes: number, details?: Record<string, unknown>) => void) | undefined;
}

/** Progress units of {@link readDocumentFile}: reading, parsing (or decoding), building layers. */
export const OPEN_UNITS = 3;

/**
 * Reads a PSD/PSB (layers kept) or a PNG/JPEG/WebP (one `Background` layer) from a path already resolved against
 * the files roots. The read never blocks on a FIFO, refuses devices, and is bounded by `maxBytes` and `signal`.
 * @throws BridgeError `BAD_REQUEST` (with `details.path`) for an unreadable or unsupported file, `NOT_FOUND` for a
 * missing one or groups nested deeper than `maxGroupDepth`, `PAYLOAD_TOO_LARGE` above `maxBytes` or `maxPixels`
 * (canvas or layer).
 */
export async function readDocumentFile(filePath: string, options: ReadDocumentOptions): Promise<OpenedFile> {
  const ext = extname(filePath).toLowerCase();
  if (ext === ".xcf") {
    // A GIMP template is the likeliest XCF to arrive here: say where it opens.
    throw new BridgeError("BAD_REQUEST", `The embedded editor does not open GIMP's XCF files: open it on a GIMP editor, or save it from GIMP as PSD`, {
      details: { path: filePath, extension: ext, editor: "embedded" },
    });
  }
  if (!OPENABLE_EXTENSIONS.includes(ext)) {
    throw new BridgeError("BAD_REQUEST", `Cannot open "${ext || "no extension"}" files; use ${OPENABLE_EXTENSIONS.join(", ")}`, {
      details: { path: filePath, extension: ext },
    });
  }
  const { stages } = options;
  stages?.stage("reading");
  const bytes = await readRegularFile(filePath, { maxBytes: options.maxBytes, signal: options.signal, within: options.within });
  options.charge?.(bytes.byteLength, { stage: "file" });
  const name = basename(filePath);
  const { maxPixels, charge } = options;
  if (ext === ".psd" || ext === ".psb") {
    stages?.stage("parsing");
    const { content, features, psb, record, psdFile } = parsePsd(bytes, { maxPixels, maxGroupDepth: options.maxGroupDepth, path: filePath, stages, charge });
    return { content, name, filePath, source: { psb, features, record, psdFile } };
  }
  stages?.stage("decoding");
  const { raster, density, features } = await decodeImage(bytes, { maxPixels, details: { path: filePath }, charge });
  stages?.stage("building layers");
  const builder = new ContentBuilder(raster.width, raster.height, density && density > 0 ? density : 72);
  const background = builder.pixel("Background", raster, { kind: "background" });
  return { content: builder.build([background], [background.id]), name, filePath, source: { psb: false, features } };
}

/**
 * Checks a `saveDocument` path: `.psd`, or `.psb` for the large document format.
 * @throws BridgeError `BAD_REQUEST` for another extension (pointing at `document:export`).
 */
export function layeredSaveFormat(filePath: string): "psd" | "psb" {
  const ext = extname(filePath).toLowerCase();
  if (!SAVABLE_EXTENSIONS.includes(ext)) {
    const hint = formatForExtension(ext) ? "; use document:export for flattened images" : "";
    throw new BridgeError("BAD_REQUEST", `The embedded editor saves layered documents as .psd or .psb only${hint}`, { details: { path: filePath } });
  }
  return ext === ".psb" ? "psb" : "psd";
}
