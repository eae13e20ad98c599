/*
 * Runs one ExtendScript (an operation as the bridge sends it, or any script) against the fake's model through
 * the DOM stub, in an ES3 realm. Photoshop fires one `imageChanged` per document a script changed (coalesced
 * here, as the fake did before scripts ran).
 */
import { extname, resolve } from "node:path";
import sharp from "sharp";
import type { FakeModel } from "../model.js";
import { layerEntries } from "../layers.js";
import type { StubQuirks } from "./action-get.js";
import { type DecodedImage, type StubEffects, photoshopStub } from "./dom.js";
import { es3Realm, runEs3 } from "./realm.js";

/** Longest a script may run in the stub: the operations are straight-line code over a small model. */
export const SCRIPT_TIMEOUT_MS = 2_000;

export interface ScriptRun extends StubEffects {
  /** The script's completion value as Photoshop sends it back: its text. */
  text: string;
}

/** Thrown when a script uses something the stub does not model: a test must not pass on an unmodelled call. */
export class StubFailure extends Error {}

export function runExtendScript(model: FakeModel, script: string, images: Map<string, DecodedImage> = new Map(), quirks: StubQuirks = {}): ScriptRun {
  let context: ReturnType<typeof es3Realm> | undefined;
  const { globals, effects } = photoshopStub(model, () => context!, images, quirks);
  context = es3Realm(globals);
  const before = new Map(model.docs.map((d) => [d.id, JSON.stringify({ s: d.selection, l: d.layers, a: d.active, g: d.globalLight })]));
  const beforeSelection = new Map(model.docs.map((d) => [d.id, JSON.stringify(d.active)]));
  const beforeLayers = new Map(model.docs.map((d) => [d.id, JSON.stringify(d.layers)]));
  const value = runEs3(context, script, "photoshop.jsx", SCRIPT_TIMEOUT_MS);
  if (effects.failures.length > 0) throw new StubFailure(effects.failures.join("; "));
  for (const d of model.docs) {
    const was = before.get(d.id);
    if (was === undefined || was === JSON.stringify({ s: d.selection, l: d.layers, a: d.active, g: d.globalLight })) continue;
    const extra: Record<string, unknown> = {};
    if (beforeSelection.get(d.id) !== JSON.stringify(d.active)) {
      const entries = layerEntries(d.layers);
      extra["selection"] = entries.filter((e) => d.active.includes(e.layer.id)).map((e) => e.index);
    }
    if (beforeLayers.get(d.id) !== JSON.stringify(d.layers)) {
      extra["layers"] = layerEntries(d.layers).map((e) => ({ id: e.layer.id, index: e.index }));
    }
    if (Object.keys(extra).length === 0) extra["metaDataOnly"] = true;
    model.changed(d, extra);
  }
  return { ...effects, text: value === undefined ? "" : String(value) };
}

/**
 * `app.open` in the stub is synchronous like Photoshop's, so an image a script will open (`params.path`) is
 * decoded before the script runs. PSD files are read by the stub itself.
 */
export async function decodeImages(p: Record<string, unknown>): Promise<Map<string, DecodedImage>> {
  const images = new Map<string, DecodedImage>();
  const path = p["path"];
  if (typeof path !== "string" || [".psd", ".psb"].includes(extname(path).toLowerCase())) return images;
  try {
    const image = sharp(path);
    const meta = await image.metadata();
    const { data, info } = await image.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    images.set(resolve(path), { width: info.width, height: info.height, resolution: meta.density ?? 72, data, format: meta.format ?? "unknown" });
  } catch {
    // Not an image (or no such file): the script's own File.exists check or app.open answers it.
  }
  return images;
}
