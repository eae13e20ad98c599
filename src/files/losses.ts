import { BridgeError } from "../protocol/errors.js";
import type { DataLoss } from "../protocol/resources.js";

/**
 * What a file holds beyond plain layered 8-bit RGB pixels: the features an editor may not be able to write
 * back. Same shape as the losses reported to clients, so "what the file had" minus "what the editor keeps" is
 * the list a save reports.
 */
export type FileFeatures = readonly DataLoss[];

/** Adds `count` (and `layerId`) to the feature `kind` of a list being built. */
export function addFeature(features: DataLoss[], kind: string, layerId?: number, detail?: string): void {
  let entry = features.find((f) => f.kind === kind);
  if (entry === undefined) {
    entry = { kind, count: 0 };
    if (detail !== undefined) entry.detail = detail;
    features.push(entry);
  }
  entry.count++;
  if (layerId !== undefined) entry.layerIds = [...(entry.layerIds ?? []), layerId];
}

/**
 * The features of `features` an editor cannot keep: everything not in `kept`, with layer features narrowed to
 * layers that still exist (a text layer the user deleted is not a silent loss).
 */
export function lostFeatures(features: FileFeatures, kept: ReadonlySet<string>, layerExists?: (id: number) => boolean): DataLoss[] {
  const out: DataLoss[] = [];
  for (const feature of features) {
    if (kept.has(feature.kind)) continue;
    if (feature.layerIds === undefined || layerExists === undefined) {
      out.push({ ...feature });
      continue;
    }
    const layerIds = feature.layerIds.filter(layerExists);
    if (layerIds.length > 0) out.push({ ...feature, count: layerIds.length, layerIds });
  }
  return out;
}

/** "2 textLayers, iccProfile" */
const summary = (losses: readonly DataLoss[]): string =>
  losses.map((loss) => (loss.count > 1 ? `${loss.count} ${loss.kind}` : loss.kind)).join(", ");

/**
 * The no-silent-loss rule: a save whose file would lack something the document was opened with is refused with
 * `WOULD_LOSE_DATA` (409, `details.wouldLose`) unless the caller passed `allowLossy: true`.
 */
export function refuseSilentLoss(losses: readonly DataLoss[], options: { allowLossy: boolean | undefined; path: string; documentId: number }): void {
  if (losses.length === 0 || options.allowLossy === true) return;
  throw new BridgeError(
    "WOULD_LOSE_DATA",
    `Saving document ${options.documentId} to ${options.path} would drop ${summary(losses)}; pass allowLossy: true to save anyway`,
    { details: { wouldLose: losses, path: options.path, documentId: options.documentId } },
  );
}

/**
 * Exports write flattened images; one written over a file an open document was read from would replace the
 * user's original, so it needs `overwrite: true`.
 */
export function refuseReplacingSource(path: string, documentIds: readonly number[], overwrite: boolean | undefined): void {
  if (documentIds.length === 0 || overwrite === true) return;
  throw new BridgeError("WOULD_LOSE_DATA", `${path} is the file open document ${documentIds.join(", ")} was read from; pass overwrite: true to replace it`, {
    details: { wouldLose: [{ kind: "sourceFile", count: 1, detail: "the file an open document was read from" }], path, documentIds },
  });
}
