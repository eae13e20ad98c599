import { open, realpath } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { BridgeError } from "../../protocol/index.js";
import { MAX_SCRIPT_BYTES } from "./limits.js";
import { lit, num } from "./scheme.js";

/** Deepest nesting of `jsx:execute` params turned into Scheme (bounds recursion on hostile input). */
export const MAX_PARAMS_DEPTH = 32;

const inside = (folder: string, path: string): boolean => {
  const rel = relative(folder, path);
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
};

/**
 * Reads the Script-Fu file `name` (or `name.scm`) from the first script folder that has it. After following
 * symlinks the file must still lie inside its folder.
 *
 * @throws BridgeError `BAD_REQUEST` (absolute, `..`, another extension), `NOT_FOUND` (no folder has it or none is
 *   configured), `FORBIDDEN` (a symlink leads outside), `PAYLOAD_TOO_LARGE` (above the Script-Fu request limit).
 */
export async function readNamedScript(dirs: readonly string[], name: string): Promise<string> {
  const segments = name.split(/[\\/]/);
  if (name.includes("\0") || isAbsolute(name) || segments.some((s) => s === ".." || s === "" || s === ".")) {
    throw new BridgeError("BAD_REQUEST", "Script names are relative paths inside the script folders, without '..'", { details: { name } });
  }
  const dotted = segments[segments.length - 1]?.includes(".") === true;
  if (dotted && !name.endsWith(".scm")) {
    throw new BridgeError("BAD_REQUEST", "Named GIMP scripts are Script-Fu files (name or name.scm)", { details: { name } });
  }
  const file = name.endsWith(".scm") ? name : `${name}.scm`;
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
    if (!inside(folder, real)) throw new BridgeError("FORBIDDEN", `Script ${name} leads outside its script folder`, { details: { name } });
    const handle = await open(real, "r").catch(() => undefined);
    if (!handle) continue;
    try {
      const info = await handle.stat();
      if (!info.isFile()) continue;
      if (info.size > MAX_SCRIPT_BYTES) {
        throw new BridgeError("PAYLOAD_TOO_LARGE", `Script ${name} exceeds ${MAX_SCRIPT_BYTES} bytes`, { details: { name, size: info.size } });
      }
      return await handle.readFile("utf8");
    } finally {
      await handle.close();
    }
  }
  throw new BridgeError("NOT_FOUND", `No script named ${name} in the script folders`, { details: { name } });
}

/**
 * JSON as a Scheme expression: strings as literals, arrays as `(list …)`, objects as association lists
 * `(list (cons "key" value) …)` (read with `assoc`), null as `'()`.
 */
export function toScheme(value: unknown, depth = 0): string {
  if (depth > MAX_PARAMS_DEPTH) throw new BridgeError("BAD_REQUEST", `Script params nest deeper than ${MAX_PARAMS_DEPTH} levels`);
  if (value === null || value === undefined) return "'()";
  if (typeof value === "string") return lit(value);
  if (typeof value === "number") return num(value);
  if (typeof value === "boolean") return value ? "#t" : "#f";
  if (Array.isArray(value)) return `(list ${value.map((v) => toScheme(v, depth + 1)).join(" ")})`;
  if (typeof value === "object") {
    const pairs = Object.entries(value as Record<string, unknown>).map(([k, v]) => `(cons ${lit(k)} ${toScheme(v, depth + 1)})`);
    return `(list ${pairs.join(" ")})`;
  }
  throw new BridgeError("BAD_REQUEST", `Script params cannot hold a ${typeof value}`);
}
