import { realpath } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { readRegularFile } from "./read.js";
import { BridgeError, isBridgeError } from "../protocol/errors.js";

/** A named script read from a script folder (`jsx:execute`). */
export interface NamedScript {
  readonly path: string;
  readonly source: string;
}

export interface NamedScriptKind {
  /** The editor's script extension, e.g. `.js`, `.jsx`, `.scm`; a name without one gets it added. */
  readonly extension: string;
  /** What the editor's scripts are, for messages ("JavaScript", "ExtendScript", "Script-Fu"). */
  readonly language: string;
  /** Largest script read. */
  readonly maxBytes: number;
}

const inside = (folder: string, path: string): boolean => {
  const rel = relative(folder, path);
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
};

/**
 * Finds `name` (or `name` + extension) in the first script folder that has it and reads it, for every editor
 * (named scripts resolve only inside the script folders). The name is a relative path that may use
 * sub-folders; after following symlinks the file must still lie inside that folder, and it is read only then.
 *
 * @throws BridgeError `BAD_REQUEST` for an absolute name, `..`, NUL or another extension; `NOT_FOUND` when no
 * folder has it (or none is configured); `FORBIDDEN` when a symlink leads outside its folder;
 * `PAYLOAD_TOO_LARGE` above `kind.maxBytes`.
 */
export async function readNamedScript(dirs: readonly string[], name: string, kind: NamedScriptKind): Promise<NamedScript> {
  const segments = name.split(/[\\/]/);
  if (name.includes("\0") || isAbsolute(name) || /^[a-zA-Z]:/.test(name) || segments.some((s) => s === ".." || s === "" || s === ".")) {
    throw new BridgeError("BAD_REQUEST", "Script names are relative paths inside the script folders, without '..'", { details: { name } });
  }
  const dotted = segments[segments.length - 1]?.includes(".") === true;
  if (dotted && !name.endsWith(kind.extension)) {
    throw new BridgeError("BAD_REQUEST", `Named scripts are ${kind.language} files (name or name${kind.extension})`, { details: { name } });
  }
  const file = name.endsWith(kind.extension) ? name : `${name}${kind.extension}`;
  if (dirs.length === 0) {
    throw new BridgeError("NOT_FOUND", "No script folders are configured (start the bridge with --scripts-dir)", { details: { name } });
  }
  for (const dir of dirs) {
    let folder: string;
    let real: string;
    try {
      folder = await realpath(resolve(dir));
      real = await realpath(join(folder, file));
    } catch {
      continue;
    }
    if (!inside(folder, real)) {
      throw new BridgeError("FORBIDDEN", `Script ${name} leads outside its script folder`, { details: { name } });
    }
    let source: Buffer;
    try {
      // Never blocks on a FIFO and never streams a device: see readRegularFile.
      source = await readRegularFile(real, { maxBytes: kind.maxBytes, label: name, within: [folder] });
    } catch (error) {
      if (isBridgeError(error) && error.code === "PAYLOAD_TOO_LARGE") {
        throw new BridgeError("PAYLOAD_TOO_LARGE", `Script ${name} exceeds ${kind.maxBytes} bytes`, { details: { ...error.details, name } });
      }
      continue; // not a readable regular file here: try the next folder
    }
    return { path: real, source: source.toString("utf8") };
  }
  throw new BridgeError("NOT_FOUND", `No script named ${name} in the script folders`, { details: { name } });
}
