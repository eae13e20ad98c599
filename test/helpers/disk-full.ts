import { open, rm } from "node:fs/promises";
import { join } from "node:path";

/**
 * Makes every FileHandle write in this process put down half its bytes and then fail as a full disk does
 * (ENOSPC), until the returned function restores it. Bridges under test run in this process, so this is a disk
 * filling up in the middle of a save.
 */
export async function diskFullMidWrite(scratchDir: string): Promise<() => void> {
  const probePath = join(scratchDir, ".probe");
  const probe = await open(probePath, "w");
  const proto = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<{ bytesWritten: number }> };
  await probe.close();
  await rm(probePath, { force: true });
  const original = proto.write;
  proto.write = async function (this: unknown, buffer: unknown, offset?: unknown, length?: unknown, ...rest: unknown[]) {
    const half = Math.floor(Number(length ?? (buffer as Uint8Array).byteLength) / 2);
    await original.call(this, buffer, offset ?? 0, half, ...rest);
    throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28, syscall: "write" });
  };
  return () => {
    proto.write = original;
  };
}

/**
 * Makes every FileHandle write in this process put down only the first half of its bytes while reporting them all
 * written (a disk or driver that loses data without an error), until the returned function restores it. A writer
 * that trusts its writes then holds a truncated file; only reading it back shows the damage.
 */
export async function silentlyTruncatedWrites(scratchDir: string): Promise<() => void> {
  const probePath = join(scratchDir, ".probe");
  const probe = await open(probePath, "w");
  const proto = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<{ bytesWritten: number; buffer: unknown }> };
  await probe.close();
  await rm(probePath, { force: true });
  const original = proto.write;
  proto.write = async function (this: unknown, buffer: unknown, offset?: unknown, length?: unknown, ...rest: unknown[]) {
    const asked = Number(length ?? (buffer as Uint8Array).byteLength);
    await original.call(this, buffer, offset ?? 0, Math.floor(asked / 2), ...rest);
    return { bytesWritten: asked, buffer };
  };
  return () => {
    proto.write = original;
  };
}
