import { open, realpath } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { BridgeError } from "../../../protocol/index.js";
import { SCRIPT_MAX_SOURCE_BYTES } from "./limits.js";

/** A named script read from a script folder. */
export interface NamedScript {
  readonly path: string;
  readonly source: string;
}

const inside = (folder: string, path: string): boolean => {
  const rel = relative(folder, path);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
};

/**
 * Finds `name` (or `name.js`) in the first script folder that has it and reads it. The name is a relative path
 * that may use sub-folders; after following symlinks the file must still lie inside that folder.
 *
 * @throws BridgeError `BAD_REQUEST` for an absolute name, `..` segments, NUL or a non-`.js` extension;
 * `NOT_FOUND` when no folder has it (or none is configured); `FORBIDDEN` when a symlink leads outside its
 * folder; `PAYLOAD_TOO_LARGE` above {@link SCRIPT_MAX_SOURCE_BYTES}.
 */
export async function readNamedScript(dirs: readonly string[], name: string, maxSourceBytes = SCRIPT_MAX_SOURCE_BYTES): Promise<NamedScript> {
  const segments = name.split(/[\\/]/);
  if (name.includes("\0") || isAbsolute(name) || /^[a-zA-Z]:/.test(name) || segments.some((s) => s === ".." || s === "" || s === ".")) {
    throw new BridgeError("BAD_REQUEST", "Script names are relative paths inside the script folders, without '..'", { details: { name } });
  }
  const dotted = segments[segments.length - 1]?.includes(".") === true;
  if (dotted && !name.endsWith(".js")) {
    throw new BridgeError("BAD_REQUEST", "Named scripts are JavaScript files (name or name.js)", { details: { name } });
  }
  const file = name.endsWith(".js") ? name : `${name}.js`;
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
    const handle = await open(real, "r").catch(() => undefined);
    if (!handle) continue;
    try {
      const info = await handle.stat();
      if (!info.isFile()) continue;
      if (info.size > maxSourceBytes) {
        throw new BridgeError("PAYLOAD_TOO_LARGE", `Script ${name} exceeds ${maxSourceBytes} bytes`, {
          details: { name, size: info.size, maxSourceBytes },
        });
      }
      return { path: real, source: await handle.readFile("utf8") };
    } finally {
      await handle.close();
    }
  }
  throw new BridgeError("NOT_FOUND", `No script named ${name} in the script folders`, { details: { name } });
}
