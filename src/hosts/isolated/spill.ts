import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { open, unlink } from "node:fs/promises";
import { join } from "node:path";
import { isProcessAlive } from "./_internal/alive.js";

/*
 * Large blobs from the editor process (encoded exports, pixels) cross through files in a folder in shared memory
 * that the bridge creates for each editor process, readable by this user only. The editor writes a blob as a new
 * file and sends its name; the bridge reads it off its own thread, deletes it, and puts the bytes where the name
 * stood. The bridge removes the folder when the editor process ends and when the bridge's process exits.
 */

/** Where the editor process finds its spill folder. */
export const SPILL_DIR_ENV = "IMAGE_EDITOR_BRIDGE_SPILL_DIR";

/** Shared memory on Linux; elsewhere (or when missing) blobs stay on the socket. */
const SHARED_MEMORY = "/dev/shm";

/** Names the editor gives its files: a counter, so a name can never leave the folder. */
const SPILL_NAME = /^\d{1,15}$/;

/** Spill folders are named after the bridge process that made them, so a later bridge can sweep a dead one's. */
const FOLDER_PREFIX = "image-editor-bridge-";
const FOLDER_NAME = /^image-editor-bridge-(\d+)-/;

/** A new private folder for one editor process's blobs, or undefined when there is no shared memory. */
export function createSpillFolder(): string | undefined {
  try {
    if (!statSync(SHARED_MEMORY).isDirectory()) return undefined;
    sweepDeadFolders();
    // mkdtemp makes the folder 0700: only this user reads what the editor spills.
    return mkdtempSync(join(SHARED_MEMORY, `${FOLDER_PREFIX}${process.pid}-`));
  } catch {
    return undefined;
  }
}

/**
 * Removes the folders of bridges that are gone: a bridge killed outright (SIGKILL, a crash) cannot remove its own,
 * and an editor killed between writing a blob and sending it would leave the file in shared memory.
 */
function sweepDeadFolders(): void {
  for (const name of readdirSync(SHARED_MEMORY)) {
    const owner = FOLDER_NAME.exec(name)?.[1];
    if (owner === undefined || Number(owner) === process.pid || isProcessAlive(Number(owner))) continue;
    try {
      if (statSync(join(SHARED_MEMORY, name)).uid === process.getuid?.()) removeSpillFolder(join(SHARED_MEMORY, name));
    } catch {
      // Another bridge swept it first.
    }
  }
}

/** Removes a spill folder and whatever is left in it (an editor that died between writing and sending). */
export function removeSpillFolder(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** The editor's side: writes blobs of at least `minBytes` as files and answers their names; smaller ones stay. */
export interface SpillWriter {
  readonly minBytes: number;
  /** Writes `blob` as a new file; undefined when it could not (the blob then goes over the socket). */
  write(blob: Uint8Array): string | undefined;
}

export function spillWriter(dir: string, minBytes: number): SpillWriter {
  let next = 0;
  return {
    minBytes,
    write(blob) {
      const name = String(next++);
      try {
        // Synchronous on purpose: this runs in the editor process (never the bridge's thread), between encoding a
        // result and sending it, and a copy into shared memory is about 1 ms for 8 MB.
        writeFileSync(join(dir, name), blob, { flag: "wx", mode: 0o600 });
        return name;
      } catch {
        // Shared memory full or gone: the socket still works.
        return undefined;
      }
    },
  };
}

/**
 * The bridge's side: reads a spilled blob named by the editor, checks its size, and deletes the file.
 * @throws Error for a name that is not one the editor writes, a missing file or a size other than announced.
 */
export async function readSpilled(dir: string, name: string, bytes: number): Promise<Buffer> {
  if (!SPILL_NAME.test(name) || !Number.isSafeInteger(bytes) || bytes < 0) throw new Error(`Corrupt frame: bad spilled blob "${name}"`);
  const path = join(dir, name);
  const file = await open(path, "r");
  try {
    const { size } = await file.stat();
    if (size !== bytes) throw new Error(`Corrupt frame: spilled blob "${name}" has ${size} bytes, ${bytes} announced`);
    // Not from the shared pool: the blob may outlive this message for long (a layer's pixels).
    const out = Buffer.allocUnsafeSlow(bytes);
    let filled = 0;
    while (filled < bytes) {
      const { bytesRead } = await file.read(out, filled, bytes - filled, filled);
      if (bytesRead === 0) throw new Error(`Corrupt frame: spilled blob "${name}" ended early`);
      filled += bytesRead;
    }
    return out;
  } finally {
    await file.close();
    await unlink(path).catch(() => {});
  }
}
