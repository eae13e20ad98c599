import { positiveInt, UsageError } from "./cli-params.js";
import { isBridgeImage } from "./image.js";

/*
 * Images on the command line: the export options shared by `export-document` and `export-layer`, and the bytes
 * of a returned image (the SDK's `BridgeImage`, or a data URI from a plugin method) that `-o` writes. No Node imports:
 * `cli/serve.ts` alone touches the file system.
 */

/**
 * A file on this machine could not be written (`-o`): the bridge did its part, so this is neither the bridge's
 * error nor a crash of the command.
 */
export class LocalFileError extends Error {}

/** Image formats the export commands write. */
export const IMAGE_FORMATS = ["png", "jpeg", "webp"] as const;
type ImageFormat = (typeof IMAGE_FORMATS)[number];

/** The format a file name asks for when `--format` is not given. */
const EXTENSION_FORMATS: Readonly<Record<string, ImageFormat>> = { png: "png", jpg: "jpeg", jpeg: "jpeg", webp: "webp" };

/** A data URI's header: the media type and the base64 marker before the comma. */
const DATA_URI = /^data:([^;,]+)(;[^,]*)?;base64,/;

/** The options of the export commands. */
export interface ExportFlags {
  format?: string | undefined;
  quality?: string | undefined;
  "max-size"?: string | undefined;
  scale?: string | undefined;
}

/** `--format` (else the file's extension, else png), `--quality`, `--max-size`, `--scale` as method params. */
export function exportParams(output: string, flags: ExportFlags): Record<string, unknown> {
  const extension = output.split(".").pop()?.toLowerCase() ?? "";
  const format = flags.format ?? EXTENSION_FORMATS[extension] ?? "png";
  if (!(IMAGE_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format expects one of ${IMAGE_FORMATS.join(", ")}, got "${format}"`);
  }
  const params: Record<string, unknown> = { format };
  if (flags.quality !== undefined) params["quality"] = positiveInt("--quality", flags.quality);
  if (flags["max-size"] !== undefined) params["maxSize"] = positiveInt("--max-size", flags["max-size"]);
  if (flags.scale !== undefined) {
    const scale = Number(flags.scale);
    if (!(scale > 0)) throw new UsageError(`--scale expects a positive number, got "${flags.scale}"`);
    params["scale"] = scale;
  }
  return params;
}

/** What `-o` wrote, as `--json` prints it. */
export interface WrittenImage {
  path: string;
  mediaType: string;
  size: number;
  format?: unknown;
  width?: unknown;
  height?: unknown;
}

/** The data URI of a result: the result itself when it is one, else its `data` field (image results). */
function dataUriOf(result: unknown): string | undefined {
  if (typeof result === "string") return DATA_URI.test(result) ? result : undefined;
  if (typeof result !== "object" || result === null) return undefined;
  const data = (result as { data?: unknown }).data;
  return typeof data === "string" && DATA_URI.test(data) ? data : undefined;
}

/** The image a method returned, as bytes with its media type: undefined when the result holds no image. */
export function imageOf(result: unknown): { bytes: Uint8Array; details: Omit<WrittenImage, "path" | "size"> } | undefined {
  if (isBridgeImage(result)) {
    // Binary or data URI on the wire, the SDK has the bytes: no base64 round trip.
    const { format, width, height } = result;
    return { bytes: result.bytes, details: { mediaType: result.mime, format, width, height } };
  }
  const uri = dataUriOf(result);
  if (uri === undefined) return undefined;
  const details: Omit<WrittenImage, "path" | "size"> = { mediaType: DATA_URI.exec(uri)?.[1] ?? "application/octet-stream" };
  if (typeof result === "object" && result !== null) {
    const { format, width, height } = result as Record<string, unknown>;
    Object.assign(details, { format, width, height });
  }
  return { bytes: Buffer.from(uri.slice(uri.indexOf(",") + 1), "base64"), details };
}

/** A failure to write `path` as a {@link LocalFileError} naming the file and the reason (`EACCES`, `ENOENT`…). */
export function localFileError(path: string, error: unknown): LocalFileError {
  const code = (error as NodeJS.ErrnoException).code;
  return new LocalFileError(`cannot write ${path}: ${code === undefined ? (error as Error).message : `${code} (${describeErrno(code)})`}`);
}

/** The reasons a user meets when writing a file, in words. */
const ERRNO_WORDS: Readonly<Record<string, string>> = {
  ENOENT: "the folder does not exist",
  EACCES: "permission denied",
  EPERM: "not permitted",
  EISDIR: "it is a folder",
  ENOTDIR: "a part of the path is not a folder",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
};

const describeErrno = (code: string): string => ERRNO_WORDS[code] ?? "the system refused";

/** One line for a written image: `wrote /tmp/a.png (800×600 png, 1234 bytes)`. */
export function describeWritten(image: WrittenImage): string {
  const size = typeof image.width === "number" && typeof image.height === "number" ? `${image.width}×${image.height} ` : "";
  const format = typeof image.format === "string" ? image.format : image.mediaType;
  return `wrote ${image.path} (${size}${format}, ${image.size} bytes)\n`;
}
