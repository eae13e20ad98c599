import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isProcessAlive } from "./_internal/alive.js";

/*
 * The private folder where an editor's recovery copies live: made by the supervisor (the editor's death must not
 * take it), named after the bridge process, so a later bridge removes the folders of one that was killed outright
 * and could not remove its own (they hold copies of users' documents).
 */

const FOLDER_PREFIX = "image-editor-bridge-recovery-";
const FOLDER_NAME = /^image-editor-bridge-recovery-(\d+)-/;

/** A new private folder (mode 0700) under the system's temporary folder, after sweeping dead bridges' folders. */
export async function createRecoveryFolder(): Promise<string> {
  const root = tmpdir();
  await sweepDeadFolders(root);
  return mkdtemp(join(root, `${FOLDER_PREFIX}${process.pid}-`));
}

/** Removes a recovery folder and every copy in it. */
export async function removeRecoveryFolder(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

async function sweepDeadFolders(root: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return;
  }
  for (const name of names) {
    const owner = FOLDER_NAME.exec(name)?.[1];
    if (owner === undefined || Number(owner) === process.pid || isProcessAlive(Number(owner))) continue;
    try {
      // Only this user's: another user's folder is theirs to sweep.
      if ((await stat(join(root, name))).uid === process.getuid?.()) await removeRecoveryFolder(join(root, name));
    } catch {
      // Another bridge swept it first.
    }
  }
}

