// One file through the embedded editor, measured against the file itself: does it open (or is it refused with a
// named reason), does the full-size PNG export match the composite Photoshop stored, does the layer tree match the
// layer records, and does a save in the same format reopen with the same structure and pixels.
// The editor comes in as a connected `HostAdapter` so the vitest suite (src/) and the report script (dist/) share
// this code.
import { readFile, rm } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import { performance } from "node:perf_hooks";
import sharp from "sharp";
import { compareImages, compareTrees, compositeStatus, structureOf } from "./compare.js";
import { decodeMerged } from "./merged.js";
import { readLayerTree } from "./records.js";

/** Decoded straight RGBA of encoded bytes (grayscale widened to RGB). */
export async function decodeRgba(bytes) {
  const { data, info } = await sharp(bytes).toColourspace("srgb").ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, rgba: data };
}

/** The error as the measurement records it: its code and the reason it names, if any. */
export function refusalOf(error) {
  const code = typeof error?.code === "string" ? error.code : undefined;
  const reason = typeof error?.details?.reason === "string" ? error.details.reason : undefined;
  const message = error instanceof Error ? error.message : String(error);
  // Named: a BridgeError code plus words that say why (a details.reason, or a message beyond the generic one).
  const named = code !== undefined && (reason !== undefined || (message.length > 0 && !/^PSD file could not be read: [^:]*$/.test(message)));
  return { code: code ?? "none", reason: reason ?? message, named };
}

function flatLayers(layers) {
  return layers.flatMap((layer) => [layer, ...flatLayers(layer.children ?? [])]);
}

/** Encoded bytes, decoded once and only when asked (most comparisons are settled by the bytes). */
function encoded(bytes) {
  let decoded;
  return { bytes, decode: () => (decoded ??= decodeRgba(bytes)) };
}

/** A document's full-size PNG export. */
async function exportDocument(host, ctx, documentId) {
  const doc = await host.getDocument(ctx, documentId);
  const image = await host.exportDocumentImage(ctx, { documentId, format: "png", size: { width: doc.width, height: doc.height } });
  return encoded(image.bytes);
}

/** Every layer's own export at its rect, in panel order (an empty layer exports 1×1). */
async function exportLayers(host, ctx, documentId, layers) {
  const out = [];
  for (const layer of flatLayers(layers)) {
    const size = layer.rect.width > 0 ? { width: layer.rect.width, height: layer.rect.height } : { width: 1, height: 1 };
    const image = await host.exportLayerImage(ctx, { documentId, layerId: layer.id, format: "png", size });
    out.push({ name: layer.name, rect: layer.rect, image: encoded(image.bytes) });
  }
  return out;
}

/** Whether two exports hold the same pixels: the same bytes do; otherwise both are decoded and compared. */
async function samePixels(a, b) {
  if (Buffer.compare(a.bytes, b.bytes) === 0) return true;
  const [x, y] = await Promise.all([a.decode(), b.decode()]);
  return x.width === y.width && x.height === y.height && Buffer.compare(Buffer.from(x.rgba), Buffer.from(y.rgba)) === 0;
}

/**
 * Saves the open document next to `workDir` with the file's extension and reopens it, unless `saveLosses` lists
 * something (then `refused` with those kinds). `lossless` needs the same structure, the same document export and
 * the same export of every layer; anything else that saved is `changed`, a save or reopen that threw `failed`.
 * `exported` is the document's export taken before, if any: a save does not change the pixels, so it is not made
 * again.
 */
async function roundTrip(host, ctx, doc, tree, source, workDir, exported) {
  const path = join(workDir, `round-trip-${basename(source, extname(source))}${extname(source)}`);
  const losses = await host.saveLosses(ctx, { documentId: doc.id, path });
  if (losses.length > 0) return { status: "refused", wouldLose: losses.map((loss) => loss.kind) };
  let reopened;
  try {
    await host.saveDocument(ctx, { documentId: doc.id, path, backup: false });
    reopened = await host.openDocument(ctx, path);
    const again = (await host.getDocumentTree(ctx, reopened.id)).layers;
    if (JSON.stringify(structureOf(again)) !== JSON.stringify(structureOf(tree))) return { status: "changed", problem: "the layer tree differs after reopening" };
    if (!(await samePixels(exported ?? (await exportDocument(host, ctx, doc.id)), await exportDocument(host, ctx, reopened.id)))) {
      return { status: "changed", problem: "the document export differs after reopening" };
    }
    const before = await exportLayers(host, ctx, doc.id, tree);
    const after = await exportLayers(host, ctx, reopened.id, again);
    let differing;
    for (const [i, layer] of before.entries()) {
      if (JSON.stringify(layer.rect) === JSON.stringify(after[i]?.rect) && (await samePixels(layer.image, after[i].image))) continue;
      differing = layer;
      break;
    }
    if (differing) return { status: "changed", problem: `layer "${differing.name}" differs after reopening` };
    return { status: "lossless" };
  } catch (error) {
    const { code, reason } = refusalOf(error);
    return { status: "failed", problem: `${code}: ${reason}` };
  } finally {
    if (reopened) await host.closeDocument(ctx, reopened.id).catch(() => {});
    await rm(path, { force: true });
  }
}

/**
 * Measures one file. `file` is the path the host opens (absolute); `workDir` a directory for the round trip.
 * @returns `{ open, refusal?, composite, tree?, roundTrip, reference, ms }`; `composite.status` and
 * `roundTrip.status` are `n/a` for a refused file.
 */
export async function measureFile(host, ctx, file, { workDir }) {
  const started = performance.now();
  const bytes = await readFile(file);
  let reference;
  try {
    reference = decodeMerged(bytes);
  } catch (error) {
    reference = { error: error instanceof Error ? error.message : String(error) };
  }
  let expectedTree;
  try {
    expectedTree = readLayerTree(bytes);
  } catch (error) {
    expectedTree = { error: error instanceof Error ? error.message : String(error) };
  }
  const referenceInfo = reference.error ? { error: reference.error } : { grayscale: reference.grayscale, hasAlpha: reference.hasAlpha, notes: reference.notes };
  let doc;
  try {
    doc = await host.openDocument(ctx, file);
  } catch (error) {
    const ms = performance.now() - started;
    return { open: "refused", refusal: refusalOf(error), composite: { status: "n/a" }, roundTrip: { status: "n/a" }, reference: referenceInfo, ms };
  }
  try {
    let composite;
    let exported;
    if (reference.error) composite = { status: "n/a", problem: `no reference: ${reference.error}` };
    else if (reference.hasRealMergedData === false) composite = { status: "n/a", problem: "no reference: the file says its merged image is not a real composite" };
    else {
      try {
        exported = await exportDocument(host, ctx, doc.id);
        const comparison = compareImages(reference, await exported.decode());
        composite = { status: compositeStatus(comparison), ...round(comparison) };
      } catch (error) {
        const { code, reason } = refusalOf(error);
        composite = { status: "wrong", problem: `export failed: ${code}: ${reason}` };
      }
    }
    const layers = (await host.getDocumentTree(ctx, doc.id)).layers;
    const tree = Array.isArray(expectedTree) ? compareTrees(expectedTree, layers) : { error: expectedTree.error };
    const trip = await roundTrip(host, ctx, doc, layers, file, workDir, exported);
    return { open: "opens", composite, tree, roundTrip: trip, reference: referenceInfo, ms: performance.now() - started };
  } finally {
    await host.closeDocument(ctx, doc.id).catch(() => {});
  }
}

function round(comparison) {
  return { rmse: Math.round(comparison.rmse * 100) / 100, share: Math.round(comparison.share * 10000) / 10000, maxDiff: comparison.maxDiff, ...(comparison.sizeMismatch ? { problem: comparison.sizeMismatch } : {}) };
}
