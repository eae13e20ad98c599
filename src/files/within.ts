import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { BridgeError } from "../protocol/errors.js";

/*
 * Opening a resolved path inside a files root so that no link swapped in after the check can lead outside.
 *
 * `resolveClientPath` checks the real path, but a folder on the way can be replaced by a symlink to an outside
 * folder between that check and the open: `O_NOFOLLOW` guards only the last component. Node has no `openat`, so
 * the folder is reached from the root's descriptor one component at a time through `/proc/self/fd/<fd>/<name>`
 * (the kernel resolves that magic link to the folder the descriptor holds, not to a path), each opened with
 * `O_DIRECTORY | O_NOFOLLOW`. The file, the temporary file of a write and the rename are then named relative to the
 * folder's descriptor in the same way. Linux only: elsewhere (no `/proc`) the check at resolution is all there is.
 */

/** Where a folder's descriptor can be named as a path; only Linux has it for certain. */
const PROC_FD = "/proc/self/fd";
const WALKS = process.platform === "linux";
const FOLDER_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** A folder held open, reached from a root without following links; its entries are named through its descriptor. */
export interface HeldFolder {
  /** The path naming `name` inside the held folder, whatever has become of the folder's own path since. */
  entry(name: string): string;
  close(): Promise<void>;
}

/** The root among `roots` that `real` lies in (the roots are real paths, so is `real`). */
function rootOf(roots: readonly string[], real: string): string | undefined {
  return roots.find((root) => {
    const rel = path.relative(root, real);
    return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
  });
}

function moved(label: string, roots: readonly string[]): BridgeError {
  return new BridgeError("FORBIDDEN", `${label} changed into a link while it was being opened; the files roots (${roots.join(", ")}) are not left`, {
    details: { path: label, roots },
  });
}

/**
 * Opens `folder` (a real path inside one of `roots`) from its root's descriptor one component at a time, never
 * following a link. Returns undefined when there is nothing to confine (`roots` null) or the platform cannot.
 *
 * @throws BridgeError `FORBIDDEN` when a component is (now) a link or outside the roots, `NOT_FOUND` when one is gone.
 */
export async function openFolderWithin(roots: readonly string[] | null | undefined, folder: string, label: string): Promise<HeldFolder | undefined> {
  if (roots === null || roots === undefined || !WALKS) return undefined;
  const root = rootOf(roots, folder);
  if (root === undefined) throw moved(label, roots);
  const rel = path.relative(root, folder);
  let held: FileHandle | undefined;
  try {
    held = await open(root, FOLDER_FLAGS);
    for (const name of rel === "" ? [] : rel.split(path.sep)) {
      const next: FileHandle = await open(`${PROC_FD}/${held.fd}/${name}`, FOLDER_FLAGS);
      await held.close();
      held = next;
    }
  } catch (cause) {
    await held?.close();
    const code = (cause as NodeJS.ErrnoException).code;
    // ELOOP: a link where a folder was; ENOTDIR: something else than a folder now.
    if (code === "ELOOP" || code === "ENOTDIR") throw moved(label, roots);
    if (code === "ENOENT") throw new BridgeError("NOT_FOUND", `No folder for ${label}`, { details: { path: label } });
    throw new BridgeError("BAD_REQUEST", `Cannot reach ${label} (${code ?? "error"})`, { details: { path: label, reason: code ?? "error" }, cause });
  }
  const handle = held;
  return {
    entry: (name) => `${PROC_FD}/${handle.fd}/${name}`,
    close: () => handle.close(),
  };
}
