import sharp from "sharp";
import type { Filesystem } from "../../files/index.js";
import { BridgeError, type HostDocument, type HostLayer } from "../../protocol/index.js";
import { fitRect } from "../_internal/fit.js";
import type { ReplaceContents } from "../edits.js";
import type { HostCallContext } from "../host.js";
import type { RunOperation } from "./operations.js";
import { withTempPng } from "./temp-file.js";

/** How far (document pixels) a smart object's corners may sit from a parallelogram, or from its perspective corners. */
const AFFINE_TOLERANCE = 0.5;

/** A smart object's placed-layer record as `layer.placed` reads it. */
interface Placed {
  readonly width: number;
  readonly height: number;
  readonly resolution: number | null;
  readonly transform: readonly number[] | null;
  readonly nonAffineTransform: readonly number[] | null;
  readonly warp: string;
}

const unsupported = (layerId: number, transform: string, why: string): BridgeError =>
  new BridgeError("NOT_SUPPORTED", `Photoshop's Replace Contents would not keep this smart object's frame: ${why}`, {
    details: { editor: "photoshop", capability: "layer:replaceContents", layerId, transform },
  });

/**
 * The frame a smart object's new content must fill, in its content's pixels.
 * @throws BridgeError `NOT_SUPPORTED` `{transform: "warp" | "perspective"}`: Replace Contents keeps those too, but the
 * bridge places the image into the frame by an affine map only, as every editor does.
 */
function frameOf(layerId: number, placed: Placed): { width: number; height: number } {
  if (placed.warp !== "warpNone") throw unsupported(layerId, "warp", `it has a warp (${placed.warp})`);
  const t = placed.transform;
  if (t !== null && t.length === 8) {
    const [x0, y0, x1, y1, x2, y2, x3, y3] = t as [number, number, number, number, number, number, number, number];
    if (Math.hypot(x1 + x3 - x0 - x2, y1 + y3 - y0 - y2) > AFFINE_TOLERANCE) throw unsupported(layerId, "perspective", "its corners are not a parallelogram (a perspective transform)");
    if (placed.nonAffineTransform?.some((v, i) => Math.abs(v - t[i]!) > AFFINE_TOLERANCE) === true) throw unsupported(layerId, "perspective", "it has a perspective transform");
  }
  return { width: Math.max(1, Math.round(placed.width)), height: Math.max(1, Math.round(placed.height)) };
}

/** The image resized to `width` × `height` (fractional sizes round, at least 1 px), as RGBA PNG bytes. */
const resized = (bytes: Uint8Array, width: number, height: number): Promise<Buffer> =>
  sharp(bytes).rotate().resize(Math.max(1, Math.round(width)), Math.max(1, Math.round(height)), { fit: "fill" }).ensureAlpha().png().toBuffer();

/**
 * A smart object's new content: the image fitted into a transparent canvas exactly the size of the old content, so
 * that Replace Contents, which keeps the layer's transform, puts its corners where the frame's were. The resolution
 * is the old content's too: Photoshop sizes placed content by its resolution.
 */
async function smartObjectContent(edit: ReplaceContents, frame: { width: number; height: number }, resolution: number | null): Promise<Buffer> {
  const rect = fitRect(edit.image.width, edit.image.height, { x: 0, y: 0, ...frame }, edit.fit, edit.alignment);
  const [w, h] = [Math.max(1, Math.round(rect.width)), Math.max(1, Math.round(rect.height))];
  const [left, top] = [Math.round(rect.x), Math.round(rect.y)];
  const cut = { left: Math.max(0, -left), top: Math.max(0, -top) };
  const size = { width: Math.min(w, frame.width - left) - cut.left, height: Math.min(h, frame.height - top) - cut.top };
  let canvas = sharp({ create: { ...frame, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } });
  if (size.width > 0 && size.height > 0) {
    const part = await sharp(await resized(edit.image.bytes, w, h)).extract({ ...cut, ...size }).png().toBuffer();
    canvas = sharp(await canvas.composite([{ input: part, left: Math.max(0, left), top: Math.max(0, top) }]).png().toBuffer());
  }
  return (resolution === null ? canvas : canvas.withMetadata({ density: resolution })).png().toBuffer();
}

/** A pixel layer's new pixels: the image sized into the box and cut to it (in whole pixels), and where they go. */
async function pixelContent(edit: ReplaceContents, box: { x: number; y: number; width: number; height: number }): Promise<{ png: Buffer; x: number; y: number }> {
  const placed = fitRect(edit.image.width, edit.image.height, box, edit.fit, edit.alignment);
  const [left, top] = [Math.round(placed.x), Math.round(placed.y)];
  const [width, height] = [Math.max(1, Math.round(placed.width)), Math.max(1, Math.round(placed.height))];
  const cut = { left: Math.max(left, Math.round(box.x)), top: Math.max(top, Math.round(box.y)) };
  const right = Math.min(left + width, Math.round(box.x + box.width));
  const bottom = Math.min(top + height, Math.round(box.y + box.height));
  const full = await resized(edit.image.bytes, width, height);
  const png = right - cut.left === width && bottom - cut.top === height ? full : await sharp(full).extract({ left: cut.left - left, top: cut.top - top, width: right - cut.left, height: bottom - cut.top }).png().toBuffer();
  return { png, x: cut.left, y: cut.top };
}

/**
 * `layer:replaceContents` on Photoshop. Photoshop opens files, not bytes: the image, sized here for the layer, goes to
 * it as a private temporary PNG that `edit.contents` places and that is removed afterwards whatever happened, so this
 * only works where Photoshop shares this machine's filesystem.
 * @throws BridgeError `NOT_SUPPORTED` when Photoshop runs elsewhere, or for a smart object's warp or perspective
 */
export async function replaceContents(
  ctx: HostCallContext,
  { run, filesystem }: { run: RunOperation; filesystem: Filesystem },
  documentId: number,
  edit: ReplaceContents,
  apply: (params: Record<string, unknown>) => Promise<unknown>,
): Promise<void> {
  if (filesystem !== "local") {
    throw new BridgeError("NOT_SUPPORTED", "Photoshop runs on another machine: it cannot open the image the bridge would write", {
      details: { editor: "photoshop", capability: "layer:replaceContents", filesystem },
    });
  }
  const layer = await run<HostLayer>(ctx.signal, "layer.get", { documentId, layerId: edit.layerId });
  let png: Buffer;
  let where: Record<string, unknown>;
  if (layer.kind === "smartObject") {
    const placed = await run<Placed>(ctx.signal, "layer.placed", { documentId, layerId: edit.layerId });
    png = await smartObjectContent(edit, frameOf(edit.layerId, placed), placed.resolution);
    where = { smartObject: true };
  } else {
    let box = edit.box ?? (layer.rect.width > 0 && layer.rect.height > 0 ? layer.rect : null);
    if (box === null) {
      const doc = await run<HostDocument>(ctx.signal, "document.get", { documentId });
      box = { x: 0, y: 0, width: doc.width, height: doc.height };
    }
    const content = await pixelContent(edit, box);
    png = content.png;
    where = { x: content.x, y: content.y };
  }
  await withTempPng("contents", png, (path) => apply({ path, ...where }));
}
