import type { McpImage } from "./backend.js";

/** How much each re-encode shrinks the longest edge when an image is over the limit. */
const SHRINK_FACTOR = 0.7;
/** Re-encodes tried before giving up on fitting an image (0.7^12 ≈ 1.4 % of the edge). */
const MAX_SHRINK_STEPS = 12;

const MIME: Readonly<Record<string, string>> = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp" };

/** MCP image content plus what the model should know about it. */
export interface ImageContent {
  readonly content: { type: "image"; data: string; mimeType: string } | null;
  /** Said beside the image when it was downscaled or could not be sent. */
  readonly note: string | undefined;
}

type SharpFactory = (input: Uint8Array) => {
  resize(options: { width: number; height: number; fit: "inside" }): { png(): { toBuffer(): Promise<Buffer> }; jpeg(options: { quality: number }): { toBuffer(): Promise<Buffer> } };
};

/** sharp, when this install has it (an optional dependency); the image is then not downscaled. */
async function loadSharp(): Promise<SharpFactory | undefined> {
  try {
    return ((await import("sharp")) as unknown as { default: SharpFactory }).default;
  } catch {
    return undefined;
  }
}

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");

/**
 * An image result as MCP image content of at most `maxBytes` (before base64): as it is when it fits, else
 * downscaled and re-encoded (PNG stays PNG, JPEG and WebP become JPEG) until it fits, with a note giving the size
 * sent. MCP image content is PNG, JPEG, GIF or WebP; other formats (TIFF) are re-encoded as PNG.
 */
export async function toImageContent(image: McpImage, maxBytes: number): Promise<ImageContent> {
  const mimeType = MIME[image.format];
  if (mimeType !== undefined && image.bytes.byteLength <= maxBytes) return { content: { type: "image", data: base64(image.bytes), mimeType }, note: undefined };
  const sharp = await loadSharp();
  if (sharp === undefined) {
    return { content: null, note: `The ${image.width}×${image.height} image (${image.bytes.byteLength} bytes) is over the ${maxBytes}-byte limit and cannot be downscaled here.` };
  }
  const asPng = image.format !== "jpeg" && image.format !== "webp";
  let scale = mimeType === undefined && image.bytes.byteLength <= maxBytes ? 1 : SHRINK_FACTOR;
  for (let step = 0; step < MAX_SHRINK_STEPS; step++, scale *= SHRINK_FACTOR) {
    const width = Math.max(1, Math.round(image.width * scale));
    const height = Math.max(1, Math.round(image.height * scale));
    const resized = sharp(image.bytes).resize({ width, height, fit: "inside" });
    const bytes = await (asPng ? resized.png() : resized.jpeg({ quality: 85 })).toBuffer();
    if (bytes.byteLength > maxBytes) continue;
    const note =
      scale === 1
        ? `The ${image.format} image was re-encoded as PNG.`
        : `The ${image.width}×${image.height} image was downscaled to ${width}×${height} to fit the ${maxBytes}-byte limit of image content; export with a smaller scale or region for the full detail.`;
    return { content: { type: "image", data: bytes.toString("base64"), mimeType: asPng ? "image/png" : "image/jpeg" }, note };
  }
  return { content: null, note: `The ${image.width}×${image.height} image could not be made smaller than the ${maxBytes}-byte limit.` };
}
