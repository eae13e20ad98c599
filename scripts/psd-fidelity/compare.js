// How an export is compared with the stored composite, and the statuses the comparison falls into. The thresholds
// were fixed before any file was measured (see test/fixtures/psd/README.md) and are not tuned to results.

/** Outcomes, best first: a later one is worse. */
export const OPEN_OUTCOMES = ["opens", "refused"];
export const COMPOSITE_STATUSES = ["identical", "close", "different", "wrong"];
export const ROUND_TRIP_STATUSES = ["lossless", "refused", "failed", "changed"];

/** The a-priori thresholds of the composite statuses. */
export const THRESHOLDS = Object.freeze({
  /** `identical`: no channel of any pixel off by more than this (0–255), over white and over black. */
  identicalMaxDiff: 1,
  /** A pixel is "off" when any channel differs by more than this: 2% of 255, rounded down. */
  offBy: 5,
  /** `close`: at most this share of pixels off… */
  closeShare: 0.01,
  /** …and an RMSE (0–255) of at most this. */
  closeRmse: 3,
  /** `different`: at most this share of pixels off; above it, `wrong`. */
  differentShare: 0.1,
});

/**
 * Compares two straight-RGBA images of one size by flattening each over white and over black (so both colour and
 * coverage count): `rmse` (0–255) is the larger of the two backgrounds', `share` the fraction of pixels off by more
 * than {@link THRESHOLDS.offBy} on either, `maxDiff` the largest channel difference.
 */
export function compareImages(reference, actual) {
  if (reference.width !== actual.width || reference.height !== actual.height) {
    return { rmse: 255, share: 1, maxDiff: 255, sizeMismatch: `${actual.width}×${actual.height} instead of ${reference.width}×${reference.height}` };
  }
  const a = reference.rgba;
  const b = actual.rgba;
  const pixels = reference.width * reference.height;
  let sumWhite = 0;
  let sumBlack = 0;
  let off = 0;
  let maxDiff = 0;
  for (let i = 0; i < pixels; i++) {
    const p = i * 4;
    const aa = a[p + 3] / 255;
    const ba = b[p + 3] / 255;
    let pixelMax = 0;
    for (let ch = 0; ch < 3; ch++) {
      const overBlackA = a[p + ch] * aa;
      const overBlackB = b[p + ch] * ba;
      const dBlack = Math.abs(Math.round(overBlackA) - Math.round(overBlackB));
      const dWhite = Math.abs(Math.round(overBlackA + 255 * (1 - aa)) - Math.round(overBlackB + 255 * (1 - ba)));
      sumBlack += dBlack * dBlack;
      sumWhite += dWhite * dWhite;
      pixelMax = Math.max(pixelMax, dBlack, dWhite);
    }
    if (pixelMax > THRESHOLDS.offBy) off++;
    if (pixelMax > maxDiff) maxDiff = pixelMax;
  }
  const samples = Math.max(1, pixels * 3);
  return { rmse: Math.sqrt(Math.max(sumWhite, sumBlack) / samples), share: pixels === 0 ? 0 : off / pixels, maxDiff };
}

/** The status of a comparison by the thresholds above. */
export function compositeStatus(comparison) {
  if (comparison.sizeMismatch) return "wrong";
  if (comparison.maxDiff <= THRESHOLDS.identicalMaxDiff) return "identical";
  if (comparison.share <= THRESHOLDS.closeShare && comparison.rmse <= THRESHOLDS.closeRmse) return "close";
  if (comparison.share <= THRESHOLDS.differentShare) return "different";
  return "wrong";
}

/** Whether `now` is worse than `recorded` on the ordered scale `scale` (unknown values are not compared). */
export function isWorse(scale, recorded, now) {
  const r = scale.indexOf(recorded);
  const n = scale.indexOf(now);
  return r !== -1 && n !== -1 && n > r;
}

/** Whether `now` is better than `recorded` on `scale`. */
export function isBetter(scale, recorded, now) {
  const r = scale.indexOf(recorded);
  const n = scale.indexOf(now);
  return r !== -1 && n !== -1 && n < r;
}

const KIND_ALIASES = { background: "pixel" };

/**
 * Compares the editor's layer tree (wire `HostLayer`s, top-most first) with the file's own records
 * (`readLayerTree`). `structure`: names, nesting, visibility, opacity (to the editor's 0.1) and blend mode;
 * `clipped` and `kinds` apart, since those are what the editor reported wrong before. A file without layer
 * records is expected to open as one pixel (background) layer.
 */
export function compareTrees(expected, actual) {
  const mismatches = [];
  const result = { structure: true, clipped: true, kinds: true, mismatches };
  const note = (field, path, want, got) => {
    result[field] = false;
    if (mismatches.length < 8) mismatches.push(`${path}: ${field === "structure" ? "" : `${field} `}expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
  };
  if (expected.length === 0) {
    const only = actual[0];
    if (actual.length !== 1 || only.children || !["pixel", "background"].includes(only.kind)) note("structure", "/", "one background layer", actual.map((l) => l.name));
    return result;
  }
  const walk = (want, got, path) => {
    if (want.length !== got.length) note("structure", path, `${want.length} layers`, `${got.length} layers`);
    for (let i = 0; i < Math.min(want.length, got.length); i++) {
      const w = want[i];
      const g = got[i];
      const at = `${path}${w.name}`;
      if (w.name !== g.name) note("structure", at, w.name, g.name);
      if (w.visible !== g.visible) note("structure", `${at} visible`, w.visible, g.visible);
      const opacity = Math.round((w.opacity / 255) * 1000) / 10;
      if (Math.abs(opacity - g.opacity) > 0.05) note("structure", `${at} opacity`, opacity, g.opacity);
      if (w.blendMode !== g.blendMode) note("structure", `${at} blend mode`, w.blendMode, g.blendMode);
      if (w.clipped !== g.clipped) note("clipped", at, w.clipped, g.clipped);
      if (w.kind !== (KIND_ALIASES[g.kind] ?? g.kind)) note("kinds", at, w.kind, g.kind);
      if (w.children || g.children) walk(w.children ?? [], g.children ?? [], `${at}/`);
    }
  };
  walk(expected, actual, "");
  return result;
}

/** A wire layer tree reduced to what a round trip must keep: names, kinds, visibility, opacity, mode, clipping, nesting. */
export function structureOf(layers) {
  return layers.map((l) => ({
    name: l.name,
    kind: l.kind,
    visible: l.visible,
    opacity: l.opacity,
    blendMode: l.blendMode,
    clipped: l.clipped,
    ...(l.children ? { children: structureOf(l.children) } : {}),
  }));
}
