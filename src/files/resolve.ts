import type { Stats } from "node:fs";
import { lstat, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { BridgeError } from "../protocol/errors.js";
import type { FilePolicy } from "./policy.js";

/**
 * Whose filesystem a path is read on. `local`: this machine, so the path is resolved for real (symlinks followed,
 * file type checked). `remote`: the editor runs elsewhere (Photoshop or an attached GIMP on another machine), so
 * only a lexical check is possible.
 */
export type Filesystem = "local" | "remote";

export interface ResolveOptions {
  /** `read`: an existing regular file. `write`: a file to create or replace in an existing folder. */
  readonly purpose: "read" | "write";
  /** @default "local" */
  readonly filesystem?: Filesystem | undefined;
  /** Largest file a read may open, checked against its size before anything is read. */
  readonly maxBytes?: number | undefined;
}

/** A client path after resolution: the real path to use, and the file's size for reads. */
export interface ResolvedPath {
  readonly path: string;
  /** Size in bytes of the existing file (reads, and writes that replace a file). */
  readonly size?: number | undefined;
}

const hasParentSegment = (input: string): boolean => input.split(/[\\/]/).includes("..");

/** Whether `child` is `root` or lies below it, in the given path flavour. */
function inside(flavor: path.PlatformPath, root: string, child: string): boolean {
  const rel = flavor.relative(root, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${flavor.sep}`) && !flavor.isAbsolute(rel));
}

const insideAny = (roots: readonly string[], child: string, flavor: path.PlatformPath = path): boolean =>
  roots.some((root) => inside(flavor, root, child));

function outside(input: string, roots: readonly string[], verb = "is outside"): BridgeError {
  // The message names the roots, never where a path outside them resolved to.
  return new BridgeError("FORBIDDEN", `${input} ${verb} the files roots (${roots.join(", ")})`, { details: { path: input, roots } });
}

/** What kind of thing a non-regular file is, for messages. */
function fileTypeOf(info: Stats): string {
  if (info.isDirectory()) return "directory";
  if (info.isFIFO()) return "fifo";
  if (info.isSocket()) return "socket";
  if (info.isCharacterDevice()) return "character device";
  if (info.isBlockDevice()) return "block device";
  return "special file";
}

/** Refuses anything but a regular file (devices, FIFOs, sockets and folders), and files above `maxBytes`. */
export function checkRegularFile(info: Stats, input: string, maxBytes: number | undefined): void {
  if (!info.isFile()) {
    const fileType = fileTypeOf(info);
    throw new BridgeError("BAD_REQUEST", `${input} is not a regular file (${fileType})`, { details: { path: input, fileType } });
  }
  if (maxBytes !== undefined && info.size > maxBytes) {
    throw new BridgeError("PAYLOAD_TOO_LARGE", `${input} is ${info.size} bytes; files up to ${maxBytes} bytes can be read`, {
      details: { path: input, size: info.size, maxBytes },
    });
  }
}

function missing(input: string, what: string, cause: unknown): BridgeError {
  const code = (cause as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ENOTDIR") {
    return new BridgeError("NOT_FOUND", `No ${what} at ${input}`, { details: { path: input } });
  }
  return new BridgeError("BAD_REQUEST", `Cannot reach ${input} (${code ?? "error"})`, { details: { path: input, reason: code ?? "error" }, cause });
}

/** Windows-style roots (`C:\…`, `\\server\…`) mean a remote editor on Windows. */
const flavorOf = (root: string | undefined): path.PlatformPath =>
  root !== undefined && /^(?:[A-Za-z]:[\\/]|\\\\)/.test(root) ? path.win32 : path.posix;

/**
 * A path another machine will open: normalised and checked to lie inside a root, without touching this
 * machine's filesystem (symlinks over there cannot be seen from here).
 */
function resolveRemote(policy: FilePolicy, input: string): ResolvedPath {
  const roots = policy.roots;
  if (roots === null) return { path: path.posix.isAbsolute(input) || path.win32.isAbsolute(input) ? input : path.resolve(input) };
  const flavor = flavorOf(roots[0]);
  const absolute = flavor.isAbsolute(input) ? flavor.normalize(input) : flavor.join(roots[0]!, input);
  if (!insideAny(roots, absolute, flavor)) throw outside(input, roots);
  return { path: absolute };
}

/**
 * Resolves a path a client sent (to open, save, export or import) against the bridge's {@link FilePolicy}. NUL
 * is refused everywhere; while confined, `..` is refused and the real path (symlinks followed) must lie inside a
 * root. Relative paths resolve against the first root (or the working folder when unconfined). On the local
 * filesystem a read must name an existing regular file within `maxBytes`, and a write an existing folder and,
 * when the file exists, a regular file: devices, FIFOs and sockets are refused before anything opens them. All
 * checks are `realpath`/`stat` calls, which never block on a FIFO.
 *
 * @throws BridgeError `BAD_REQUEST` (NUL, not a regular file), `FORBIDDEN` (outside the roots, `..` while
 *   confined), `NOT_FOUND` (no such file or folder), `PAYLOAD_TOO_LARGE` (above `maxBytes`).
 */
export async function resolveClientPath(policy: FilePolicy, input: string, options: ResolveOptions): Promise<ResolvedPath> {
  if (input.includes("\0")) {
    throw new BridgeError("BAD_REQUEST", "A path may not contain NUL characters", { details: { path: input.replaceAll("\0", "\\0") } });
  }
  const roots = policy.roots;
  if (roots !== null && hasParentSegment(input)) {
    throw new BridgeError("FORBIDDEN", `Paths may not use ".." while file access is confined to the files roots (${roots.join(", ")})`, {
      details: { path: input, roots },
    });
  }
  if (options.filesystem === "remote") return resolveRemote(policy, input);
  const absolute = roots === null ? path.resolve(input) : path.resolve(roots[0]!, input);
  // Lexically outside: refused before the filesystem is touched, so nothing about it is learnt.
  if (roots !== null && !insideAny(roots, absolute)) throw outside(input, roots);
  return options.purpose === "read" ? resolveRead(roots, input, absolute, options.maxBytes) : resolveWrite(roots, input, absolute);
}

async function resolveRead(roots: readonly string[] | null, input: string, absolute: string, maxBytes: number | undefined): Promise<ResolvedPath> {
  let real: string;
  try {
    real = await realpath(absolute);
  } catch (cause) {
    throw missing(input, "file", cause);
  }
  if (roots !== null && !insideAny(roots, real)) throw outside(input, roots, "leads outside");
  const info = await stat(real).catch((cause: unknown) => {
    throw missing(input, "file", cause);
  });
  checkRegularFile(info, input, maxBytes);
  return { path: real, size: info.size };
}

async function resolveWrite(roots: readonly string[] | null, input: string, absolute: string): Promise<ResolvedPath> {
  let folder: string;
  try {
    folder = await realpath(path.dirname(absolute));
  } catch (cause) {
    throw missing(input, "folder", cause);
  }
  let target = path.join(folder, path.basename(absolute));
  const existing = await lstat(target).catch(() => undefined);
  if (existing?.isSymbolicLink()) {
    // Writing replaces the file the link points to, so that file is what must be inside a root.
    try {
      target = await realpath(target);
    } catch {
      throw new BridgeError("BAD_REQUEST", `${input} is a link to nothing`, { details: { path: input } });
    }
  }
  if (roots !== null && !insideAny(roots, target)) throw outside(input, roots, "leads outside");
  const info = existing === undefined ? undefined : await stat(target).catch(() => undefined);
  if (info !== undefined) checkRegularFile(info, input, undefined);
  return { path: target, size: info?.size };
}
