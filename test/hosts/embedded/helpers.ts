import sharp from "sharp";
import type { EncodedImage, HostAdapter, HostCallContext, ImportLayerOptions, Rgba } from "../../../src/hosts/host.js";
import { createEmbeddedHost } from "../../../src/hosts/embedded/index.js";
import type { EmbeddedHostOptions } from "../../../src/hosts/embedded/index.js";
import type { FileFormat, HostLayer } from "../../../src/protocol/index.js";

/** Ids of the sample document's layers (see `sample.ts`). */
export const SAMPLE = { background: 1, shadow: 2, subject: 3, product: 4, label: 5 } as const;

/** Opaque white, the colour `document:create` defaults to. */
export const WHITE: Rgba = [255, 255, 255, 255];

/** A call context that never aborts. */
export function ctx(): HostCallContext {
  return { signal: new AbortController().signal, caller: "test" };
}

/** An embedded host, connected. */
export async function connectedHost(options: EmbeddedHostOptions = {}): Promise<HostAdapter> {
  const host = createEmbeddedHost(options);
  await host.connect();
  return host;
}

/** Every layer of a document (the active one by default) in panel order. */
export async function layersOf(host: HostAdapter, documentId?: number): Promise<HostLayer[]> {
  return flatten((await host.getDocumentTree(ctx(), documentId)).layers);
}

/** The layer with this name in a document (the active one by default). */
export async function layerNamed(host: HostAdapter, name: string, documentId?: number): Promise<HostLayer> {
  const layer = (await layersOf(host, documentId)).find((l) => l.name === name);
  if (!layer) throw new Error(`no layer named ${name}`);
  return layer;
}

/** A document's composite at its own size. */
export async function exportDocument(
  host: HostAdapter,
  options: { documentId?: number; format?: FileFormat; quality?: number } = {},
): Promise<EncodedImage> {
  const doc = await host.getDocument(ctx(), options.documentId);
  const size = { width: doc.width, height: doc.height };
  return host.exportDocumentImage(ctx(), { documentId: doc.id, format: options.format ?? "png", quality: options.quality, size });
}

/** A layer's own pixels at the size of its `rect` (1×1 when empty), as the methods ask for it unscaled. */
export async function exportLayer(host: HostAdapter, layerId: number, documentId?: number, format: FileFormat = "png"): Promise<EncodedImage> {
  const doc = await host.getDocument(ctx(), documentId);
  const layer = (await layersOf(host, doc.id)).find((l) => l.id === layerId);
  const size = layer && layer.rect.width > 0 ? { width: layer.rect.width, height: layer.rect.height } : { width: 1, height: 1 };
  return host.exportLayerImage(ctx(), { documentId: doc.id, layerId, format, size });
}

/**
 * Imports encoded bytes as the methods would once they read the header: at the header size unless `size` says
 * otherwise, top-left at `position` (default 0, 0), at the top of the active document unless `aboveLayerId`.
 */
export async function importBytes(
  host: HostAdapter,
  bytes: Uint8Array,
  options: Partial<Omit<ImportLayerOptions, "image">> = {},
): Promise<number> {
  const meta = await sharp(bytes).metadata();
  const image = { bytes, format: meta.format as ImportLayerOptions["image"]["format"], width: meta.width!, height: meta.height! };
  return host.importLayer!(ctx(), {
    documentId: options.documentId ?? (await host.getDocument(ctx(), undefined)).id,
    image,
    size: options.size ?? { width: image.width, height: image.height },
    position: options.position ?? { x: 0, y: 0 },
    name: options.name ?? "Imported Layer",
    aboveLayerId: options.aboveLayerId ?? null,
  });
}

/** Decoded RGBA pixels of encoded bytes. */
export async function rawPixels(bytes: Uint8Array): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** RGBA at (x, y). */
export function pixelAt(image: { data: Buffer; width: number }, x: number, y: number): number[] {
  const i = (y * image.width + x) * 4;
  return [...image.data.subarray(i, i + 4)];
}

/** PNG bytes of one solid colour. */
export async function solidPng(width: number, height: number, rgba: [number, number, number, number]): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
  return sharp(data, { raw: { width, height, channels: 4 } }).png().toBuffer();
}

/** Every layer of a tree in panel order (group before its children). */
export function flatten(layers: readonly HostLayer[]): HostLayer[] {
  return layers.flatMap((layer) => [layer, ...flatten(layer.children ?? [])]);
}

/** Runs a JavaScript source as `jsx:run` would (no params). */
export function runJs(host: HostAdapter, source: string, timeoutMs = 5000): Promise<unknown> {
  return host.runScript!(ctx(), { source, language: "javascript", params: undefined, timeoutMs });
}

/** The error a call fails with, as the tests read it; fails the test when the call succeeds. */
export async function failureOf(promise: Promise<unknown>): Promise<{ code?: string; message?: string; details?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; message?: string; details?: Record<string, unknown> };
  }
  throw new Error("expected a failure");
}
