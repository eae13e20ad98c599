/*
 * The filters of `filter:apply` on a straight-RGBA raster, each answering a new raster of the same size. Pixels
 * beyond the raster's edge repeat its edge pixels (GIMP's and libvips's "clamp"). Colour is blurred premultiplied by
 * alpha, so transparent pixels lend no colour. libvips (through sharp) does the Gaussian (blur, unsharp mask, high
 * pass) and the median; the rest are loops here. See docs/editing.md for each filter's definition.
 */
import sharp, { type Sharp } from "sharp";
import type { ResolvedFilter } from "../../../protocol/adjustments.js";
import { emptyRaster, type Raster } from "../raster.js";
import { RowBands, type RowWork } from "../work.js";

/** Below this σ libvips refuses a Gaussian (sharp's minimum); a direct float kernel does it here. */
const SHARP_MIN_SIGMA = 0.3;
/**
 * From this σ up libvips's `approximate` Gaussian is used (0.64 s at σ 10 on 2000×1500), below it the float mask
 * (4.8 s there, little on a small mask). Against the exact Gaussian (test/hosts/embedded/filters.test.ts): float
 * within 0.5 mean / 1.0 max levels; approximate 0.46 / 2.9 at σ 6, 0.43 / 1.8 at σ 10; the integer mask (0.24 s) is
 * off by 1.9 / 5.4 at σ 1 and 1.2 / 2.7 at σ 7, past the 1-level mean bound, so it is not used.
 */
const GAUSS_FLOAT_BELOW = 6;
/** libvips stops the Gaussian mask where it falls under this fraction of its peak: 0.001 keeps it within a level. */
const GAUSS_MIN_AMPLITUDE = 0.001;

/** The filter applied to `src`; `random` draws 0–1 (noise only). */
export async function runFilter(filter: ResolvedFilter, src: Raster, work: RowWork, random: () => number): Promise<Raster> {
  switch (filter.type) {
    case "gaussianBlur":
      return gaussian(src, filter.radius, work);
    case "boxBlur":
      return boxBlur(src, filter.radius, work);
    case "motionBlur":
      return motionBlur(src, filter.angle, filter.distance, work);
    case "unsharpMask": {
      const blurred = await gaussian(src, filter.radius, work);
      const k = filter.amount / 100;
      return perChannel(src, blurred, (v, b) => (Math.abs(v - b) >= filter.threshold && v !== b ? v + k * (v - b) : v), work);
    }
    case "highPass": {
      const blurred = await gaussian(src, filter.radius, work);
      return perChannel(src, blurred, (v, b) => v - b + 128, work);
    }
    case "sharpen":
      return convolve3(src, [0, -1, 0, -1, 5, -1, 0, -1, 0], work);
    case "median":
      return median(src, filter.radius);
    case "pixelate":
      return pixelate(src, filter.size, work);
    case "emboss":
      return emboss(src, filter.azimuth, filter.elevation, filter.depth, work);
    case "addNoise":
      return addNoise(src, filter.amount, filter.distribution, filter.monochromatic, work, random);
  }
}

const sharpRaw = (src: Raster) => sharp(Buffer.from(src.data.buffer, src.data.byteOffset, src.data.length), { raw: { width: src.width, height: src.height, channels: 4 } });

async function fromSharp(pipeline: Sharp, width: number, height: number): Promise<Raster> {
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 4 || info.width !== width || info.height !== height) throw new Error(`sharp answered ${info.width}×${info.height}×${info.channels}`);
  return { width, height, data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.length) };
}

/** Gaussian blur of standard deviation `sigma` pixels: libvips's (premultiplied; see GAUSS_FLOAT_BELOW), or a direct kernel below its minimum. */
export async function gaussian(src: Raster, sigma: number, work: RowWork): Promise<Raster> {
  if (src.width === 0 || src.height === 0) return emptyRaster(src.width, src.height);
  if (sigma < SHARP_MIN_SIGMA) {
    const half = Math.max(1, Math.ceil(sigma * 4));
    const taps = Array.from({ length: 2 * half + 1 }, (_, i) => Math.exp(-((i - half) ** 2) / (2 * sigma * sigma)));
    const sum = taps.reduce((a, b) => a + b, 0);
    return separable(src, taps.map((t) => t / sum), work);
  }
  // sharp premultiplies a raw image with an alpha band before blurring it, and divides again after.
  const precision = sigma < GAUSS_FLOAT_BELOW ? "float" : "approximate";
  return fromSharp(sharpRaw(src).blur({ sigma, precision, minAmplitude: GAUSS_MIN_AMPLITUDE }), src.width, src.height);
}

/** Premultiplied float copy of a raster (colour × alpha / 255, alpha as is). */
function premultiplied(src: Raster): Float32Array {
  const out = new Float32Array(src.data.length);
  const d = src.data;
  for (let i = 0; i < d.length; i += 4) {
    const a = d[i + 3] as number;
    const k = a / 255;
    out[i] = (d[i] as number) * k;
    out[i + 1] = (d[i + 1] as number) * k;
    out[i + 2] = (d[i + 2] as number) * k;
    out[i + 3] = a;
  }
  return out;
}

/** Premultiplied floats back to a straight-RGBA raster, rounded. */
function straight(values: Float32Array, width: number, height: number): Raster {
  const out = emptyRaster(width, height);
  const d = out.data;
  for (let i = 0; i < values.length; i += 4) {
    const a = values[i + 3] as number;
    if (a <= 0) continue;
    const k = 255 / a;
    d[i] = (values[i] as number) * k;
    d[i + 1] = (values[i + 1] as number) * k;
    d[i + 2] = (values[i + 2] as number) * k;
    d[i + 3] = a;
  }
  return out;
}

/**
 * One pass of a symmetric 1-D kernel over premultiplied pixels, `from` into `to`: along rows (`across`) or along
 * columns, edges clamped.
 */
function convolvePass(from: Float32Array, to: Float32Array, width: number, height: number, taps: readonly number[], across: boolean, bands: RowBands): void {
  const half = (taps.length - 1) / 2;
  for (let y = 0; y < height; y++) {
    bands.next();
    for (let x = 0; x < width; x++) {
      let r = 0;
      let g = 0;
      let bl = 0;
      let al = 0;
      for (let t = -half; t <= half; t++) {
        const w = taps[t + half] as number;
        const i = across ? (y * width + Math.min(width - 1, Math.max(0, x + t))) * 4 : (Math.min(height - 1, Math.max(0, y + t)) * width + x) * 4;
        r += w * (from[i] as number);
        g += w * (from[i + 1] as number);
        bl += w * (from[i + 2] as number);
        al += w * (from[i + 3] as number);
      }
      const o = (y * width + x) * 4;
      to[o] = r;
      to[o + 1] = g;
      to[o + 2] = bl;
      to[o + 3] = al;
    }
  }
}

/** A symmetric 1-D kernel (odd length, summing to 1) run along rows then columns, edges clamped. */
function separable(src: Raster, taps: readonly number[], work: RowWork): Raster {
  const { width, height } = src;
  const a = premultiplied(src);
  const b = new Float32Array(a.length);
  const bands = new RowBands(work);
  convolvePass(a, b, width, height, taps, true, bands);
  convolvePass(b, a, width, height, taps, false, bands);
  bands.end(height * 2);
  return straight(a, width, height);
}

/**
 * Box blur: the mean of the (2r + 1)² neighbourhood, by running sums along rows, then columns (exact: every pixel
 * weighs the same), edges clamped.
 */
function boxBlur(src: Raster, r: number, work: RowWork): Raster {
  const { width, height } = src;
  const n = 2 * r + 1;
  const a = premultiplied(src);
  const b = new Float32Array(a.length);
  const bands = new RowBands(work);
  const pass = (from: Float32Array, to: Float32Array, lines: number, length: number, at: (line: number, i: number) => number): void => {
    const sum = new Float64Array(4);
    for (let line = 0; line < lines; line++) {
      bands.next();
      sum.fill(0);
      for (let i = -r; i <= r; i++) {
        const p = at(line, Math.min(length - 1, Math.max(0, i)));
        for (let c = 0; c < 4; c++) sum[c]! += from[p + c] as number;
      }
      for (let i = 0; i < length; i++) {
        const o = at(line, i);
        for (let c = 0; c < 4; c++) to[o + c] = (sum[c] as number) / n;
        const out = at(line, Math.max(0, i - r));
        const inn = at(line, Math.min(length - 1, i + r + 1));
        for (let c = 0; c < 4; c++) sum[c]! += (from[inn + c] as number) - (from[out + c] as number);
      }
    }
  };
  pass(a, b, height, width, (y, x) => (y * width + x) * 4);
  pass(b, a, width, height, (x, y) => (y * width + x) * 4);
  bands.end(width + height);
  return straight(a, width, height);
}

/**
 * Motion blur: the mean along a segment `distance` pixels long through each pixel (centred on it) at `angle`
 * degrees counter-clockwise from the x axis, sampled every pixel of its length with bilinear interpolation.
 */
function motionBlur(src: Raster, angle: number, distance: number, work: RowWork): Raster {
  const { width, height } = src;
  const a = premultiplied(src);
  const out = new Float32Array(a.length);
  const rad = (angle * Math.PI) / 180;
  const dx = Math.cos(rad);
  const dy = -Math.sin(rad);
  const samples = Math.max(1, Math.round(distance)) + 1;
  const offsets = Array.from({ length: samples }, (_, i) => (samples === 1 ? 0 : -distance / 2 + (distance * i) / (samples - 1)));
  const bands = new RowBands(work);
  const acc = new Float64Array(4);
  for (let y = 0; y < height; y++) {
    bands.next();
    for (let x = 0; x < width; x++) {
      acc.fill(0);
      for (const t of offsets) {
        const sx = Math.min(width - 1, Math.max(0, x + t * dx));
        const sy = Math.min(height - 1, Math.max(0, y + t * dy));
        const x0 = Math.floor(sx);
        const y0 = Math.floor(sy);
        const x1 = Math.min(width - 1, x0 + 1);
        const y1 = Math.min(height - 1, y0 + 1);
        const fx = sx - x0;
        const fy = sy - y0;
        const i00 = (y0 * width + x0) * 4;
        const i10 = (y0 * width + x1) * 4;
        const i01 = (y1 * width + x0) * 4;
        const i11 = (y1 * width + x1) * 4;
        for (let c = 0; c < 4; c++) {
          const top = (a[i00 + c] as number) * (1 - fx) + (a[i10 + c] as number) * fx;
          const bottom = (a[i01 + c] as number) * (1 - fx) + (a[i11 + c] as number) * fx;
          acc[c]! += top * (1 - fy) + bottom * fy;
        }
      }
      const o = (y * width + x) * 4;
      for (let c = 0; c < 4; c++) out[o + c] = (acc[c] as number) / samples;
    }
  }
  bands.end(height);
  return straight(out, width, height);
}

/** Each output colour channel `fn(v, b)` of the source's `v` and another raster's `b` at the same pixel; alpha kept. */
function perChannel(src: Raster, other: Raster, fn: (v: number, b: number) => number, work: RowWork): Raster {
  const out = emptyRaster(src.width, src.height);
  const bands = new RowBands(work);
  const s = src.data;
  const o = other.data;
  const d = out.data;
  const row = src.width * 4;
  for (let y = 0; y < src.height; y++) {
    bands.next();
    for (let i = y * row; i < (y + 1) * row; i += 4) {
      d[i] = fn(s[i] as number, o[i] as number);
      d[i + 1] = fn(s[i + 1] as number, o[i + 1] as number);
      d[i + 2] = fn(s[i + 2] as number, o[i + 2] as number);
      d[i + 3] = s[i + 3] as number;
    }
  }
  bands.end(src.height);
  return out;
}

/** A 3×3 convolution of the colour channels (row-major weights), edges clamped, rounded; alpha kept. */
function convolve3(src: Raster, weights: readonly number[], work: RowWork): Raster {
  const { width, height } = src;
  const out = emptyRaster(width, height);
  const s = src.data;
  const bands = new RowBands(work);
  for (let y = 0; y < height; y++) {
    bands.next();
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      for (let c = 0; c < 3; c++) {
        let v = 0;
        for (let j = -1; j <= 1; j++) {
          const yy = Math.min(height - 1, Math.max(0, y + j));
          for (let i = -1; i <= 1; i++) {
            const xx = Math.min(width - 1, Math.max(0, x + i));
            v += (weights[(j + 1) * 3 + (i + 1)] as number) * (s[(yy * width + xx) * 4 + c] as number);
          }
        }
        out.data[o + c] = v;
      }
      out.data[o + 3] = s[o + 3] as number;
    }
  }
  bands.end(height);
  return out;
}

/** Median of each channel over the (2r + 1)² square, by libvips (edges repeat). */
async function median(src: Raster, r: number): Promise<Raster> {
  if (src.width === 0 || src.height === 0) return emptyRaster(src.width, src.height);
  return fromSharp(sharpRaw(src).median(2 * r + 1), src.width, src.height);
}

/** Square cells from the raster's top-left, each filled with its premultiplied mean. */
function pixelate(src: Raster, size: number, work: RowWork): Raster {
  const { width, height } = src;
  const a = premultiplied(src);
  const out = new Float32Array(a.length);
  const bands = new RowBands(work);
  const sum = new Float64Array(4);
  for (let cy = 0; cy < height; cy += size) {
    bands.next();
    const y1 = Math.min(height, cy + size);
    for (let cx = 0; cx < width; cx += size) {
      const x1 = Math.min(width, cx + size);
      sum.fill(0);
      for (let y = cy; y < y1; y++) for (let x = cx; x < x1; x++) for (let c = 0; c < 4; c++) sum[c]! += a[(y * width + x) * 4 + c] as number;
      const n = (y1 - cy) * (x1 - cx);
      for (let y = cy; y < y1; y++) for (let x = cx; x < x1; x++) for (let c = 0; c < 4; c++) out[(y * width + x) * 4 + c] = (sum[c] as number) / n;
    }
  }
  bands.end(height);
  return straight(out, width, height);
}

/**
 * Emboss: the image as a height field (the sum of its channels over each 3×3 neighbourhood), shaded by a light at
 * `azimuth` and `elevation`: a grey level per pixel, alpha kept. The surface normal is `(Nx, Ny, 1/depth)` with
 * Nx the left column's sum less the right's and Ny the bottom row's less the top's; the shade is the normal's
 * cosine with the light (flat: the light's own height), never below 0.
 */
function emboss(src: Raster, azimuth: number, elevation: number, depth: number, work: RowWork): Raster {
  const { width, height } = src;
  const out = emptyRaster(width, height);
  const s = src.data;
  const az = (azimuth * Math.PI) / 180;
  const el = (elevation * Math.PI) / 180;
  const lx = Math.cos(az) * Math.cos(el);
  const ly = Math.sin(az) * Math.cos(el);
  const lz = Math.sin(el);
  const nz = 1 / depth;
  const m = new Float64Array(9);
  const bands = new RowBands(work);
  for (let y = 0; y < height; y++) {
    bands.next();
    for (let x = 0; x < width; x++) {
      for (let j = -1; j <= 1; j++) {
        const yy = Math.min(height - 1, Math.max(0, y + j));
        for (let i = -1; i <= 1; i++) {
          const p = (yy * width + Math.min(width - 1, Math.max(0, x + i))) * 4;
          const alpha = (s[p + 3] as number) / 255;
          m[(j + 1) * 3 + (i + 1)] = (((s[p] as number) + (s[p + 1] as number) + (s[p + 2] as number)) / 255) * alpha;
        }
      }
      const nx = (m[0] as number) + (m[3] as number) + (m[6] as number) - (m[2] as number) - (m[5] as number) - (m[8] as number);
      const ny = (m[6] as number) + (m[7] as number) + (m[8] as number) - (m[0] as number) - (m[1] as number) - (m[2] as number);
      let shade: number;
      if (nx === 0 && ny === 0) shade = lz;
      else {
        const dot = nx * lx + ny * ly + nz * lz;
        shade = dot < 0 ? 0 : dot / Math.sqrt(nx * nx + ny * ny + nz * nz);
      }
      const o = (y * width + x) * 4;
      const v = shade * 255;
      out.data[o] = v;
      out.data[o + 1] = v;
      out.data[o + 2] = v;
      out.data[o + 3] = s[o + 3] as number;
    }
  }
  bands.end(height);
  return out;
}

/** A standard normal draw (Box–Muller). */
function normal(random: () => number): number {
  const u = Math.max(Number.MIN_VALUE, random());
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/**
 * Noise added to the colour channels: `gaussian` of standard deviation `amount` % of 255, or `uniform` within
 * ±`amount` % of 255; one draw for all three channels when `monochromatic`. Alpha kept.
 */
function addNoise(src: Raster, amount: number, distribution: "uniform" | "gaussian", monochromatic: boolean, work: RowWork, random: () => number): Raster {
  const scale = (amount / 100) * 255;
  const draw = distribution === "gaussian" ? () => normal(random) * scale : () => (2 * random() - 1) * scale;
  const out = emptyRaster(src.width, src.height);
  const s = src.data;
  const d = out.data;
  const row = src.width * 4;
  const bands = new RowBands(work);
  for (let y = 0; y < src.height; y++) {
    bands.next();
    for (let i = y * row; i < (y + 1) * row; i += 4) {
      const one = monochromatic ? draw() : 0;
      d[i] = (s[i] as number) + (monochromatic ? one : draw());
      d[i + 1] = (s[i + 1] as number) + (monochromatic ? one : draw());
      d[i + 2] = (s[i + 2] as number) + (monochromatic ? one : draw());
      d[i + 3] = s[i + 3] as number;
    }
  }
  bands.end(src.height);
  return out;
}
