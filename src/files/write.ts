import { randomUUID } from "node:crypto";
import { constants } from "node:fs";
import { chmod, copyFile, link, open, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { BridgeError, isBridgeError } from "../protocol/errors.js";
import { openFolderWithin } from "./within.js";

/** Suffix of the one backup kept when a save replaces a file: `photo.psd` → `photo.psd.bak`. */
export const BACKUP_SUFFIX = ".bak";

/** Bytes handed to one `write` call; a short write is continued, never assumed complete. */
const WRITE_CHUNK_BYTES = 8 * 1024 * 1024;

/** Creates the temporary file exclusively: two writers can never share one (a name clash fails, not merges). */
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

export interface WriteOptions {
  /** Keep the file being replaced as `<name>.bak` (one backup, replaced each time). @default false */
  readonly backup?: boolean | undefined;
  /** How to name the file in errors (the client's own path); defaults to the path. */
  readonly label?: string | undefined;
  /** Permissions of a new file, before the umask (a replaced file keeps its own). @default 0o666 */
  readonly mode?: number | undefined;
  /**
   * Reads the finished temporary file back before it replaces the target, answering why it would not open again
   * (undefined when it would). A file that does not read back is removed and never renamed: the save fails with
   * `INTERNAL` and the target stays byte for byte as it was. @default no check
   */
  readonly verify?: ((temp: string) => Promise<string | undefined>) | undefined;
  /**
   * The files roots `target` was resolved inside: its folder is then reached from the root without following a
   * link, and the temporary file, the backup and the rename are made through that folder's descriptor, so a folder
   * swapped for a link to elsewhere after the check is refused, never written into. @default none
   */
  readonly within?: readonly string[] | null | undefined;
}

export interface WriteOutcome {
  readonly path: string;
  /** Where the replaced file was kept, when there was one and `backup` was asked for. */
  readonly backupPath?: string | undefined;
}

/** Runs work per key one after the other: each key's queue is the tail of the work waiting for it. */
function serialiser(): <T>(key: string, work: () => Promise<T>) => Promise<T> {
  const queues = new Map<string, Promise<void>>();
  return async (key, work) => {
    const previous = queues.get(key) ?? Promise.resolve();
    let release!: () => void;
    const tail = previous.then(() => new Promise<void>((resolve) => (release = resolve)));
    queues.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (queues.get(key) === tail) queues.delete(key);
    }
  };
}

/** Writes to one target path, one after the other. */
const serialised = serialiser();

/**
 * Saves to one path that editors write themselves, one after the other. Editors of a pool run in their own
 * processes, each with its own write queue: two saves to one path from two editors must still not interleave
 * their backup and rename. A queue of its own, apart from the writes', so an editor in this process that writes
 * through `writeFileAtomic` inside it does not wait for itself.
 */
export const serialisedSaves = serialiser();

/** A unique hidden sibling of `target`: same folder, so the final rename stays on one filesystem (atomic). */
export function temporarySibling(target: string): string {
  return join(dirname(target), `.${basename(target)}.${randomUUID()}.tmp`);
}

function writeError(cause: unknown, label: string): BridgeError {
  const code = (cause as NodeJS.ErrnoException).code ?? "error";
  const reason: Record<string, string> = {
    ENOSPC: "no space left on the device",
    EDQUOT: "disk quota exceeded",
    EACCES: "permission denied",
    EPERM: "operation not permitted",
    EROFS: "read-only filesystem",
    EISDIR: "it is a folder",
  };
  return new BridgeError("BAD_REQUEST", `Cannot write ${label}: ${reason[code] ?? code}; the previous file is unchanged`, {
    details: { path: label, reason: code },
    cause,
  });
}

/** A written file that would not open again: the writer's fault, not the caller's, and nothing was replaced. */
function readBackError(problem: string, label: string): BridgeError {
  return new BridgeError("INTERNAL", `The file written for ${label} does not read back (${problem}); ${label} is unchanged`, {
    details: { path: label, reason: "readBack", problem },
  });
}

/**
 * Writes a file so that readers and crashes only ever see the old file or the new one, never a mix: the bytes go
 * to a uniquely named temporary sibling (created exclusively), are flushed to disk, then renamed over the target;
 * the folder is flushed after. Writes to one path run one at a time. When the target exists its permissions are
 * kept, and with `backup` it is kept as `<name>.bak` (a hard link, so nothing is copied). On any failure the
 * temporary file is removed and the target is exactly as it was.
 *
 * @throws BridgeError `BAD_REQUEST` with `details.reason` (the errno, e.g. `ENOSPC`).
 */
export function writeFileAtomic(target: string, bytes: Uint8Array, options: WriteOptions = {}): Promise<WriteOutcome> {
  return install(target, options, basename(temporarySibling(target)), async (temp) => {
    const handle = await open(temp, CREATE_FLAGS, options.mode ?? 0o666);
    try {
      for (let offset = 0; offset < bytes.byteLength; ) {
        const { bytesWritten } = await handle.write(bytes, offset, Math.min(WRITE_CHUNK_BYTES, bytes.byteLength - offset));
        offset += bytesWritten;
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
  });
}

/**
 * Moves a finished temporary file (written by an editor, e.g. GIMP, into {@link temporarySibling}) over `target`,
 * with the same ordering, backup and failure rules as {@link writeFileAtomic}. The temporary file is removed on
 * failure.
 */
export function replaceWithFile(temp: string, target: string, options: WriteOptions = {}): Promise<WriteOutcome> {
  return install(target, options, basename(temp), async (held) => {
    const handle = await open(held, constants.O_RDONLY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  });
}

/**
 * Copies a finished file an editor wrote elsewhere (GIMP, into its private exchange folder) over `target`, with the
 * same ordering, backup, read-back and failure rules as {@link writeFileAtomic}: the bytes go to a temporary file
 * created inside the target's folder (held from the files root with `within`), then it is renamed over the target.
 * `source` is left for its owner to remove.
 */
export function copyFileAtomic(source: string, target: string, options: WriteOptions = {}): Promise<WriteOutcome> {
  return install(target, options, basename(temporarySibling(target)), async (temp) => {
    const from = await open(source, constants.O_RDONLY);
    try {
      const handle = await open(temp, CREATE_FLAGS, options.mode ?? 0o666);
      try {
        const chunk = Buffer.allocUnsafe(WRITE_CHUNK_BYTES);
        for (;;) {
          const { bytesRead } = await from.read(chunk, 0, chunk.byteLength, null);
          if (bytesRead === 0) break;
          for (let offset = 0; offset < bytesRead; ) offset += (await handle.write(chunk, offset, bytesRead - offset)).bytesWritten;
        }
        await handle.sync();
      } finally {
        await handle.close();
      }
    } finally {
      await from.close();
    }
  });
}

/**
 * Runs `prepare` (which leaves the bytes in the temporary file `tempName`, a sibling of `target`, on disk), then
 * puts it in place; one writer per path. With `within`, every name is taken inside the folder held from the root.
 */
function install(target: string, options: WriteOptions, tempName: string, prepare: (temp: string) => Promise<void>): Promise<WriteOutcome> {
  return serialised(target, async () => {
    const label = options.label ?? target;
    // Inside the queue, so a writer waiting its turn holds no descriptor.
    const folder = await openFolderWithin(options.within, dirname(target), label).catch(async (cause: unknown) => {
      // A temporary file the editor wrote (GIMP) is not put in place: it is removed by the path it was given.
      if (options.within !== undefined) await rm(join(dirname(target), tempName), { force: true });
      throw cause;
    });
    const name = (entry: string): string => (folder === undefined ? join(dirname(target), entry) : folder.entry(entry));
    const temp = name(tempName);
    try {
      await prepare(temp);
      const problem = await options.verify?.(temp);
      if (problem !== undefined) throw readBackError(problem, label);
      const done = await commit(temp, name(basename(target)), options.backup === true);
      return { path: target, backupPath: done.backupPath === undefined ? undefined : `${target}${BACKUP_SUFFIX}` };
    } catch (cause) {
      await rm(temp, { force: true });
      throw isBridgeError(cause) ? cause : writeError(cause, label);
    } finally {
      await folder?.close();
    }
  });
}

async function commit(temp: string, target: string, backup: boolean): Promise<WriteOutcome> {
  const existing = await stat(target).catch(() => undefined);
  let backupPath: string | undefined;
  if (existing?.isFile()) {
    await chmod(temp, existing.mode & 0o7777);
    if (backup) {
      backupPath = `${target}${BACKUP_SUFFIX}`;
      await keepBackup(target, backupPath);
    }
  }
  await rename(temp, target);
  await syncFolder(dirname(target));
  return { path: target, backupPath };
}

/** Makes `backupPath` the current `target` in one rename, so an old backup is never half replaced. */
async function keepBackup(target: string, backupPath: string): Promise<void> {
  const staging = temporarySibling(backupPath);
  try {
    // A hard link shares the old file's bytes (the target is then replaced by rename, not rewritten in place);
    // filesystems without hard links get a copy.
    await link(target, staging).catch(() => copyFile(target, staging, constants.COPYFILE_EXCL));
    await rename(staging, backupPath);
  } catch (cause) {
    await rm(staging, { force: true });
    throw cause;
  }
}

/**
 * Keeps a copy of `target` as `<name>.bak` before an editor that writes its own files (Photoshop) replaces it.
 * A copy, not a link: the editor may rewrite the file in place. Returns the backup's path, or undefined when
 * there was no file to keep.
 */
export function copyBackup(target: string): Promise<string | undefined> {
  return serialised(target, async () => {
    const existing = await stat(target).catch(() => undefined);
    if (!existing?.isFile()) return undefined;
    const backupPath = `${target}${BACKUP_SUFFIX}`;
    const staging = temporarySibling(backupPath);
    try {
      await copyFile(target, staging, constants.COPYFILE_EXCL);
      await rename(staging, backupPath);
    } catch (cause) {
      await rm(staging, { force: true });
      throw writeError(cause, backupPath);
    }
    return backupPath;
  });
}

/** Flushes a folder's entries so a rename survives a power loss; best effort (not every platform allows it). */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, constants.O_RDONLY).catch(() => undefined);
  if (handle === undefined) return;
  try {
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on folders; the rename itself is still atomic.
  } finally {
    await handle.close();
  }
}
