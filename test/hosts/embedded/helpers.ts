import sharp from "sharp";
import type { HostAdapter, HostCallContext } from "../../../src/hosts/host.js";
import { createEmbeddedHost } from "../../../src/hosts/embedded/index.js";
import type { EmbeddedHostOptions } from "../../../src/hosts/embedded/index.js";
import type { HostLayer } from "../../../src/protocol/index.js";

/** A call context that never aborts. */
export function ctx(): HostCallContext {
  return { signal: new AbortController().signal, clientId: "test" };
}

/** An embedded host, connected. */
export async function connectedHost(options: EmbeddedHostOptions = {}): Promise<HostAdapter> {
  const host = createEmbeddedHost(options);
  await host.connect();
  return host;
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

/** A PNG data URI of one solid colour. */
export async function solidPngDataUri(width: number, height: number, rgba: [number, number, number, number]): Promise<string> {
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
  const png = await sharp(data, { raw: { width, height, channels: 4 } }).png().toBuffer();
  return `data:image/png;base64,${png.toString("base64")}`;
}

/** Every layer of a tree in panel order (group before its children). */
export function flatten(layers: readonly HostLayer[]): HostLayer[] {
  return layers.flatMap((layer) => [layer, ...flatten(layer.children ?? [])]);
}

/** Expects a promise to reject with a BridgeError of this code; returns the error. */
export async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}
