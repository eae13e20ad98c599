import { randomUUID } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Photoshop opens files, not bytes: `use` gets the path of a private temporary PNG holding `png`, named
 * `bridge-<purpose>-<uuid>.png`, which is removed afterwards whatever happened. Only a Photoshop that shares this
 * machine's filesystem can open it.
 */
export async function withTempPng<T>(purpose: string, png: Uint8Array, use: (path: string) => Promise<T>): Promise<T> {
  const path = join(tmpdir(), `bridge-${purpose}-${randomUUID()}.png`);
  // Readable by this user only, and never through a file someone placed at that name beforehand.
  await writeFile(path, png, { mode: 0o600, flag: "wx" });
  try {
    return await use(path);
  } finally {
    await rm(path, { force: true });
  }
}
