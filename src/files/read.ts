import { constants, type Stats } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { BridgeError } from "../protocol/errors.js";
import { checkRegularFile } from "./resolve.js";
import { openFolderWithin } from "./within.js";

/**
 * Bytes read per step; between steps the call's abort signal is checked, so a big file read stops soon after its
 * deadline instead of holding memory and a libuv thread until the end.
 */
export const READ_CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * `O_NONBLOCK` makes opening a FIFO return at once instead of parking a libuv thread until a writer appears;
 * `O_NOFOLLOW` refuses a symlink swapped in after the path was resolved. Both are 0 where the platform lacks them.
 */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

export interface ReadOptions {
  /** Largest file read; a bigger one is refused from its size before any byte is read. */
  readonly maxBytes: number;
  /** Aborts the read between chunks (the call's deadline). */
  readonly signal?: AbortSignal | undefined;
  /** How to name the file in errors (the client's own path); defaults to `path`. */
  readonly label?: string | undefined;
  /**
   * The files roots `path` was resolved inside: its folder is then reached from the root without following a link,
   * so a folder swapped for a link to elsewhere after the check is refused, not read through. @default none
   */
  readonly within?: readonly string[] | null | undefined;
}

/**
 * Reads a regular file whole, safely for every file the bridge itself reads: the open never blocks (FIFOs), the
 * open file is checked to be a regular file (devices such as `/dev/zero` are refused, not streamed), its size is
 * bounded by `maxBytes`, and the read stops when `signal` aborts. Pass a path from `resolveClientPath`.
 *
 * @throws BridgeError `NOT_FOUND`, `BAD_REQUEST` (not a regular file, a link, unreadable), `PAYLOAD_TOO_LARGE`,
 *   `TIMEOUT` (aborted).
 */
export async function readRegularFile(path: string, options: ReadOptions): Promise<Buffer> {
  return (await readRegularFileInfo(path, options)).bytes;
}

/**
 * {@link readRegularFile}, with the `stat` of the very file the bytes were read from (size, modification time):
 * what an editor that reopens the file later compares to tell whether it is still the same.
 */
export async function readRegularFileInfo(path: string, options: ReadOptions): Promise<{ bytes: Buffer; info: Stats }> {
  const label = options.label ?? path;
  let handle: FileHandle;
  const folder = await openFolderWithin(options.within, dirname(path), label);
  try {
    handle = await open(folder === undefined ? path : folder.entry(basename(path)), READ_FLAGS);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new BridgeError("NOT_FOUND", `No file at ${label}`, { details: { path: label } });
    if (code === "ELOOP") throw new BridgeError("BAD_REQUEST", `${label} is a symbolic link`, { details: { path: label } });
    throw new BridgeError("BAD_REQUEST", `Cannot read ${label} (${code ?? "error"})`, { details: { path: label, reason: code ?? "error" }, cause });
  } finally {
    await folder?.close();
  }
  try {
    const info = await handle.stat();
    checkRegularFile(info, label, options.maxBytes);
    return { bytes: await readAll(handle, info.size, label, options.signal), info };
  } finally {
    await handle.close();
  }
}

/** Reads `size` bytes (fewer if the file shrank meanwhile; never more, so growth cannot exceed the bound). */
async function readAll(handle: FileHandle, size: number, label: string, signal: AbortSignal | undefined): Promise<Buffer> {
  const bytes = Buffer.allocUnsafe(size);
  let offset = 0;
  while (offset < size) {
    if (signal?.aborted) throw new BridgeError("TIMEOUT", `The call was aborted while reading ${label}`, { details: { path: label } });
    const { bytesRead } = await handle.read(bytes, offset, Math.min(READ_CHUNK_BYTES, size - offset), offset);
    if (bytesRead === 0) break;
    offset += bytesRead;
  }
  return offset === size ? bytes : bytes.subarray(0, offset);
}
