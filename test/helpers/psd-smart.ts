/**
 * PSD pieces for smart-object tests, made with ag-psd: a picture of four coloured quadrants, the corners of a
 * turned and scaled frame, and a placed layer (a smart object) whose embedded PNG is drawn through such a frame.
 */
import type { Layer, LinkedFile } from "ag-psd";
import sharp from "sharp";

/** A PNG of four solid quadrants (red top-left, green top-right, blue bottom-right, yellow bottom-left). */
export async function quadrants(width: number, height: number): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const right = x >= width / 2;
      const bottom = y >= height / 2;
      const rgb = !bottom ? (right ? [0, 255, 0] : [255, 0, 0]) : right ? [0, 0, 255] : [255, 255, 0];
      data.set([...rgb, 255], (y * width + x) * 4);
    }
  }
  return sharp(data, { raw: { width, height, channels: 4 } }).png().toBuffer();
}

/** The corners (top-left, top-right, bottom-right, bottom-left) of a w×h frame scaled by `scale`, turned by `degrees` about (cx, cy). */
export function turnedCorners(w: number, h: number, scale: number, degrees: number, cx: number, cy: number): number[] {
  const r = (degrees * Math.PI) / 180;
  const [cos, sin] = [Math.cos(r), Math.sin(r)];
  return [
    [-w / 2, -h / 2],
    [w / 2, -h / 2],
    [w / 2, h / 2],
    [-w / 2, h / 2],
  ].flatMap(([x, y]) => [cx + scale * (x! * cos - y! * sin), cy + scale * (x! * sin + y! * cos)]);
}

/** Where a smart object sits: its embedded image's size, the scale and turn of its frame, and the frame's centre. */
export interface SmartFrame {
  readonly width: number;
  readonly height: number;
  readonly scale: number;
  readonly degrees: number;
  readonly centre: { readonly x: number; readonly y: number };
}

/**
 * A placed layer showing `embedded` (a PNG of the frame's size) through the frame, and the linked file the PSD must
 * carry for it. The layer's own pixels are a grey box over the frame's bounds, as a stale preview would be: an
 * editor that draws the smart object from its embedded file shows something else.
 */
export function smartObjectLayer(name: string, id: string, embedded: Buffer, frame: SmartFrame, extra: Partial<Layer> = {}): { layer: Layer; file: LinkedFile } {
  const corners = turnedCorners(frame.width, frame.height, frame.scale, frame.degrees, frame.centre.x, frame.centre.y);
  const xs = corners.filter((_, i) => i % 2 === 0);
  const ys = corners.filter((_, i) => i % 2 === 1);
  const left = Math.floor(Math.min(...xs));
  const top = Math.floor(Math.min(...ys));
  const w = Math.ceil(Math.max(...xs)) - left;
  const h = Math.ceil(Math.max(...ys)) - top;
  const layer: Layer = {
    name,
    left,
    top,
    imageData: { width: w, height: h, data: new Uint8ClampedArray(w * h * 4).fill(128) },
    placedLayer: { id, placed: id, type: "raster", transform: corners, width: frame.width, height: frame.height },
    ...extra,
  };
  return { layer, file: { id, name: `${name}.png`, type: "png ", data: new Uint8Array(embedded) } };
}
