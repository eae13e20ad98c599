import type { Stats } from "node:fs";
import { asList, asNumber, type Sexp } from "./scheme.js";

/** What tells the file at a path apart from the one read there earlier: its size and modification time. */
export interface FileIdentity {
  readonly size: number;
  readonly mtimeMs: number;
}

export const identityOf = (info: Stats): FileIdentity => ({ size: info.size, mtimeMs: info.mtimeMs });

export const sameIdentity = (a: FileIdentity, b: FileIdentity): boolean => a.size === b.size && a.mtimeMs === b.mtimeMs;

/** Each layer of an image with its tattoo, as `br-tattoos` answers them: `[layer id, tattoo]`, GIMP's ids. */
export type LayerTattoos = ReadonlyArray<readonly [number, number]>;

/**
 * How an image came to be, in GIMP's ids: while no call has changed it, it can be made again from this alone,
 * without a recovery copy. `file`: opened from `path` (the client's path, on this machine), which then held a file
 * of `identity`. `new`: made by the Script-Fu `form` (`document:create`).
 */
export type ImageOrigin =
  | { readonly kind: "file"; readonly path: string; readonly identity: FileIdentity; readonly tattoos: LayerTattoos }
  | { readonly kind: "new"; readonly form: string; readonly tattoos: LayerTattoos };

/** Parses `br-tattoos`: `((layer tattoo) ...)`. */
export function parseTattoos(value: Sexp): Array<[number, number]> {
  return asList(value, "layer tattoos").map((entry) => {
    const [layer, tattoo] = asList(entry, "layer tattoo");
    return [asNumber(layer, "layer id"), asNumber(tattoo, "tattoo")];
  });
}
