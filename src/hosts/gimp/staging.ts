/**
 * GIMP never opens a client's file by its path on this machine: the bridge reads it (through the files roots'
 * held folder, `files/within.ts`, so a folder swapped for a link after the check is refused, never read through)
 * and GIMP loads the bytes from a file of the bridge's private exchange folder. Saves under files roots go the
 * other way: GIMP writes into the exchange folder and the bridge copies the bytes into place (`copyFileAtomic`).
 */
import { writeFile } from "node:fs/promises";
import { extname } from "node:path";
import { readRegularFileInfo } from "../../files/index.js";
import { identityOf, type FileIdentity } from "./origins.js";

/** What the staged load of a file needs of the GIMP session. */
export interface Stager {
  /** The files roots in force, or null when unconfined. */
  roots(): readonly string[] | null;
  /** Runs `use` with a fresh path in the exchange folder (mode 0700, the bridge's) and removes it afterwards. */
  scratch<T>(ext: string, use: (file: string) => Promise<T>): Promise<T>;
}

/** A client's file as the bridge read it: its bytes and what tells it apart from a later file at its path. */
export interface ReadFile {
  readonly bytes: Buffer;
  readonly identity: FileIdentity;
}

/**
 * Reads the client's file at `path` (resolved by the caller) whole, bounded by `maxBytes`, inside the files roots.
 *
 * @throws BridgeError `FORBIDDEN` (a folder became a link), `NOT_FOUND`, `BAD_REQUEST`, `PAYLOAD_TOO_LARGE`, `TIMEOUT`.
 */
export async function readClientFile(stager: Stager, path: string, options: { maxBytes: number; signal?: AbortSignal | undefined }): Promise<ReadFile> {
  const { bytes, info } = await readRegularFileInfo(path, { maxBytes: options.maxBytes, signal: options.signal, within: stager.roots() });
  return { bytes, identity: identityOf(info) };
}

/**
 * Puts `bytes` in a file of the exchange folder with `path`'s extension (GIMP picks its loader by it and by the
 * bytes) and runs `use` with that file, which is removed afterwards. GIMP's loaders for the formats the bridge
 * opens (PSD, XCF, PNG, JPEG, TIFF, WebP…) read no file beside the one given.
 */
export function staged<T>(stager: Stager, path: string, bytes: Uint8Array, use: (file: string) => Promise<T>): Promise<T> {
  return stager.scratch(extname(path), async (file) => {
    await writeFile(file, bytes, { mode: 0o600, flag: "wx" });
    return use(file);
  });
}
