import { realpath, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { BridgeError } from "../protocol/errors.js";

/**
 * Where clients may read and write files. `roots: null` is unconfined: any path the bridge user can reach, as a
 * desktop editor would (the default on loopback without a token). Plain data, so it can be handed to an editor
 * running elsewhere (a worker) unchanged.
 */
export interface FilePolicy {
  /** Real (symlink-free) absolute folders every client path must lie inside, or `null` for unconfined. */
  readonly roots: readonly string[] | null;
}

/** The policy of a bridge without `--files-root`. */
export const UNCONFINED: FilePolicy = Object.freeze({ roots: null });

/**
 * Builds the policy from the configured roots: each must be an existing folder, and is stored as its real path
 * so a symlinked root cannot be swapped for another folder after start. Duplicates are dropped, order kept
 * (relative client paths resolve against the first root).
 *
 * @throws BridgeError `BAD_REQUEST` naming a root that does not exist or is not a folder.
 */
export async function createFilePolicy(roots: readonly string[] | undefined): Promise<FilePolicy> {
  if (roots === undefined || roots.length === 0) return UNCONFINED;
  const real: string[] = [];
  for (const root of roots) {
    let path: string;
    try {
      path = await realpath(resolve(root));
    } catch {
      throw new BridgeError("BAD_REQUEST", `Files root ${root} does not exist`, { details: { root } });
    }
    if (!(await stat(path)).isDirectory()) {
      throw new BridgeError("BAD_REQUEST", `Files root ${root} is not a folder`, { details: { root } });
    }
    if (!real.includes(path)) real.push(path);
  }
  return Object.freeze({ roots: Object.freeze(real) });
}
