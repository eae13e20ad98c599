import { mkdtemp, rm, statfs } from "node:fs/promises";
import { join } from "node:path";

/** Where Linux keeps a memory-backed file system for everyone. */
const MEMORY_FS = "/dev/shm";
/** `statfs`'s type of tmpfs. */
export const TMPFS_MAGIC = 0x01021994;
/**
 * The room the memory file system must have free before the run puts its temp files there. A whole run's temp files
 * peaked near 90 MB; a container's default `/dev/shm` of 64 MB is too small, and the run then keeps the system's.
 */
const MIN_FREE_BYTES = 1024 ** 3;

/**
 * vitest's global setup: the run's temp files (every `os.tmpdir()` of the workers and of the processes they start:
 * copies of the repository, npm installs, saved PSDs, GIMP's profiles) go to a folder of the run's own on the memory
 * file system when there is one with room, and the folder goes when the run ends. A temp file written there costs a
 * copy in memory; on a disk's file system it also costs the journal and the block allocation, several times the CPU
 * for the same bytes on a virtual machine's disk. A `TMPDIR` set by whoever runs the suite is kept as it is.
 */
export default function setup(): Promise<(() => Promise<void>) | undefined> {
  return useMemoryTempDir(MEMORY_FS, MIN_FREE_BYTES);
}

/**
 * Points `TMPDIR` at a new folder on `fileSystem` when it is a tmpfs with `minFreeBytes` free and no `TMPDIR` is set;
 * resolves with what puts `TMPDIR` back and removes the folder, or undefined when it changed nothing.
 */
export async function useMemoryTempDir(fileSystem: string, minFreeBytes: number): Promise<(() => Promise<void>) | undefined> {
  if (process.env["TMPDIR"]) return undefined;
  const room = await statfs(fileSystem).catch(() => undefined);
  if (room === undefined || room.type !== TMPFS_MAGIC || room.bavail * room.bsize < minFreeBytes) return undefined;
  const dir = await mkdtemp(join(fileSystem, "image-editor-bridge-test-"));
  // Read again by os.tmpdir() on every call, and inherited by the workers vitest starts after the global setups.
  process.env["TMPDIR"] = dir;
  return async () => {
    delete process.env["TMPDIR"];
    await rm(dir, { recursive: true, force: true });
  };
}
