#!/usr/bin/env node
// Synthetic product shots with exact subject masks, for measuring cutouts (bench/cutout-iou.js, tests).
// Deterministic: the same scene, size and seed give the same bytes. Nothing here is committed as a binary.
//
//   node scripts/generate-product-shots.js <out-dir> [--width 1200] [--height 900] [--seed 1]
//
// writes <scene>.png (the photo) and <scene>.mask.png (255 = subject) for every scene.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";

/** Supersamples per pixel edge: 3 → 9 samples; coverage ≥ 1/2 counts as subject in the exact mask. */
const SUPERSAMPLE = 3;

/** Small deterministic PRNG (mulberry32). */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const mix = (a, b, t) => a.map((v, i) => v + (b[i] - v) * t);
const clamp01 = (t) => Math.min(1, Math.max(0, t));
const smooth = (e0, e1, x) => {
  const t = clamp01((x - e0) / (e1 - e0));
  return t * t * (3 - 2 * t);
};
const shade = (c, k) => c.map((v) => v * k);

// Shapes in scene units: y in [0, 1] top to bottom, x in [0, aspect]; all take (x, y) and return a boolean.
const ellipse = (cx, cy, rx, ry) => (x, y) => ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1;
const rect = (x0, y0, x1, y1) => (x, y) => x >= x0 && x <= x1 && y >= y0 && y <= y1;
const roundRect = (x0, y0, x1, y1, r) => (x, y) => {
  if (!rect(x0, y0, x1, y1)(x, y)) return false;
  const dx = Math.max(x0 + r - x, 0, x - (x1 - r));
  const dy = Math.max(y0 + r - y, 0, y - (y1 - r));
  return dx * dx + dy * dy <= r * r;
};
const polygon = (points) => (x, y) => {
  let inside = false;
  for (let i = 0, j = points.length - 1; i < points.length; j = i++) {
    const [xi, yi] = points[i];
    const [xj, yj] = points[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
};
const union = (...shapes) => (x, y) => shapes.some((s) => s(x, y));
const minus = (a, b) => (x, y) => a(x, y) && !b(x, y);

/** A soft elliptical shadow: multiplier ≤ 1 on the background. */
const softShadow = (cx, cy, rx, ry, strength) => (x, y) => {
  const d = ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2;
  return 1 - strength * Math.exp(-d * 1.6);
};

/**
 * Scenes: `background(x, y)` colour, optional `shadow(x, y)` multiplier, and `parts` painted in order, each with
 * `inside(x, y)` and `color(x, y)`. `j` is the seeded jitter of the subject's position.
 */
const SCENES = {
  "bottle-grey-sweep": (a, j) => {
    const cx = a / 2 + j.dx;
    const body = roundRect(cx - 0.09, 0.36 + j.dy, cx + 0.09, 0.86 + j.dy, 0.04);
    const shoulder = ellipse(cx, 0.38 + j.dy, 0.09, 0.07);
    const neck = rect(cx - 0.032, 0.17 + j.dy, cx + 0.032, 0.36 + j.dy);
    const cap = roundRect(cx - 0.038, 0.13 + j.dy, cx + 0.038, 0.19 + j.dy, 0.008);
    const glass = (x) => shade([35, 120, 70], 0.55 + 0.65 * Math.cos(((x - cx) / 0.09) * 1.3) ** 2);
    return {
      background: (x, y) => mix([214, 214, 216], [168, 168, 172], smooth(0.45, 1, y)),
      shadow: softShadow(cx + 0.1, 0.86 + j.dy, 0.2, 0.035, 0.45),
      parts: [
        { inside: union(body, shoulder, neck), color: (x) => glass(x) },
        { inside: cap, color: (x) => shade([190, 160, 60], 0.8 + 0.3 * Math.cos((x - cx) / 0.04)) },
        { inside: rect(cx - 0.07, 0.52 + j.dy, cx + 0.07, 0.68 + j.dy), color: () => [240, 235, 220] },
      ],
    };
  },
  "shoe-colour-gradient": (a, j) => {
    const cx = a / 2 + j.dx;
    const cy = 0.55 + j.dy;
    const upper = union(
      polygon([
        [cx - 0.33, cy + 0.06],
        [cx - 0.3, cy - 0.08],
        [cx - 0.12, cy - 0.12],
        [cx - 0.02, cy - 0.22],
        [cx + 0.14, cy - 0.22],
        [cx + 0.2, cy - 0.05],
        [cx + 0.34, cy + 0.03],
        [cx + 0.34, cy + 0.08],
      ]),
      ellipse(cx + 0.26, cy + 0.02, 0.09, 0.07),
    );
    const sole = roundRect(cx - 0.35, cy + 0.06, cx + 0.36, cy + 0.12, 0.025);
    return {
      background: (x, y) => mix([70, 160, 205], [225, 125, 175], clamp01((x / a + y) / 2)),
      shadow: softShadow(cx, cy + 0.13, 0.38, 0.03, 0.35),
      parts: [
        { inside: upper, color: (x, y) => shade([205, 30, 40], 0.8 + 0.3 * (1 - (y - cy + 0.22) / 0.3)) },
        { inside: sole, color: () => [245, 245, 240] },
        { inside: rect(cx - 0.05, cy - 0.18, cx + 0.1, cy - 0.165), color: () => [250, 250, 250] },
      ],
    };
  },
  "white-mug-near-white": (a, j) => {
    const cx = a / 2 - 0.04 + j.dx;
    const body = union(rect(cx - 0.15, 0.3 + j.dy, cx + 0.15, 0.76 + j.dy), ellipse(cx, 0.76 + j.dy, 0.15, 0.03));
    const handle = minus(ellipse(cx + 0.17, 0.52 + j.dy, 0.1, 0.13), ellipse(cx + 0.17, 0.52 + j.dy, 0.055, 0.08));
    const cyl = (x) => 0.78 + 0.22 * Math.cos(((x - cx) / 0.15) * 1.35);
    return {
      background: (x, y) => mix([246, 246, 243], [232, 232, 229], smooth(0.2, 1, y)),
      shadow: softShadow(cx + 0.05, 0.79 + j.dy, 0.27, 0.04, 0.3),
      parts: [
        // Cool porcelain on a warm paper sweep: nearly the same lightness, slightly different tint.
        { inside: minus(handle, body), color: (x, y) => shade([222, 225, 232], 0.86 + 0.1 * Math.cos((y - 0.52) * 8)) },
        { inside: body, color: (x) => shade([226, 229, 236], cyl(x)) },
        { inside: ellipse(cx, 0.3 + j.dy, 0.15, 0.03), color: () => [198, 200, 206] },
      ],
    };
  },
  "box-light-blue": (a, j) => {
    const cx = a / 2 + j.dx;
    const top = 0.25 + j.dy;
    const front = polygon([
      [cx - 0.25, top + 0.12],
      [cx + 0.05, top + 0.2],
      [cx + 0.05, top + 0.6],
      [cx - 0.25, top + 0.52],
    ]);
    const side = polygon([
      [cx + 0.05, top + 0.2],
      [cx + 0.27, top + 0.1],
      [cx + 0.27, top + 0.48],
      [cx + 0.05, top + 0.6],
    ]);
    const lid = polygon([
      [cx - 0.25, top + 0.12],
      [cx - 0.03, top + 0.02],
      [cx + 0.27, top + 0.1],
      [cx + 0.05, top + 0.2],
    ]);
    return {
      background: (x, y) => mix([190, 212, 235], [150, 182, 215], y),
      shadow: softShadow(cx + 0.04, top + 0.58, 0.34, 0.05, 0.4),
      parts: [
        { inside: front, color: () => [176, 124, 72] },
        { inside: side, color: () => [132, 92, 52] },
        { inside: lid, color: () => [205, 156, 100] },
        { inside: rect(cx - 0.15, top + 0.25, cx - 0.05, top + 0.33), color: () => [240, 240, 235] },
      ],
    };
  },
  "donut-dark-slate": (a, j) => {
    const cx = a / 2 + j.dx;
    const cy = 0.5 + j.dy;
    const ring = minus(ellipse(cx, cy, 0.27, 0.27), ellipse(cx, cy, 0.1, 0.1));
    return {
      background: (x, y) => mix([58, 63, 70], [38, 42, 48], y),
      parts: [
        {
          inside: ring,
          color: (x, y) => {
            const r = Math.hypot(x - cx, y - cy);
            return shade([235, 145, 45], 0.65 + 0.4 * Math.sin(((r - 0.1) / 0.17) * Math.PI));
          },
        },
        { inside: minus(ellipse(cx, cy - 0.02, 0.24, 0.22), ellipse(cx, cy, 0.13, 0.13)), color: () => [120, 60, 35] },
      ],
    };
  },
  "apple-beige": (a, j) => {
    const cx = a / 2 + j.dx;
    const cy = 0.56 + j.dy;
    const fruit = union(ellipse(cx - 0.09, cy, 0.17, 0.2), ellipse(cx + 0.09, cy, 0.17, 0.2));
    const stem = polygon([
      [cx - 0.008, cy - 0.18],
      [cx + 0.008, cy - 0.18],
      [cx + 0.03, cy - 0.3],
      [cx + 0.016, cy - 0.3],
    ]);
    const leaf = ellipse(cx + 0.09, cy - 0.26, 0.07, 0.025);
    return {
      background: (x, y) => mix([232, 218, 192], [205, 188, 158], smooth(0, 1, y)),
      shadow: softShadow(cx + 0.04, cy + 0.2, 0.26, 0.04, 0.4),
      parts: [
        { inside: stem, color: () => [95, 60, 30] },
        { inside: leaf, color: () => [60, 140, 50] },
        {
          inside: fruit,
          color: (x, y) => (Math.hypot(x - cx + 0.08, y - cy + 0.08) < 0.05 ? [235, 120, 120] : shade([185, 22, 32], 0.75 + 0.3 * (1 - (y - cy + 0.2) / 0.4))),
        },
      ],
    };
  },
  "phone-white": (a, j) => {
    const cx = a / 2 + j.dx;
    const body = roundRect(cx - 0.16, 0.12 + j.dy, cx + 0.16, 0.88 + j.dy, 0.04);
    const screen = roundRect(cx - 0.14, 0.16 + j.dy, cx + 0.14, 0.84 + j.dy, 0.02);
    return {
      background: (x, y) => mix([252, 252, 252], [238, 238, 240], y),
      shadow: softShadow(cx + 0.03, 0.86 + j.dy, 0.22, 0.05, 0.35),
      parts: [
        { inside: body, color: () => [22, 22, 26] },
        { inside: screen, color: (x, y) => mix([40, 90, 200], [150, 60, 190], y) },
      ],
    };
  },
};

/** Names of every scene. */
export const SCENE_NAMES = Object.keys(SCENES);

/**
 * Renders one scene: straight RGBA pixels (opaque) and the exact subject mask (one byte per pixel, 255 = subject).
 *
 * @param {string} name one of SCENE_NAMES
 * @param {{ width?: number, height?: number, seed?: number }} [options]
 * @returns {{ name: string, width: number, height: number, rgba: Buffer, mask: Uint8Array }}
 */
export function renderScene(name, options = {}) {
  const make = SCENES[name];
  if (!make) throw new Error(`unknown scene "${name}"; known: ${SCENE_NAMES.join(", ")}`);
  const width = options.width ?? 1200;
  const height = options.height ?? 900;
  const seed = options.seed ?? 1;
  const rand = random(seed * 7919 + name.length);
  const aspect = width / height;
  const scene = make(aspect, { dx: (rand() - 0.5) * 0.06, dy: (rand() - 0.5) * 0.04 });
  const rgba = Buffer.alloc(width * height * 4);
  const mask = new Uint8Array(width * height);
  const s = SUPERSAMPLE;
  const samples = s * s;
  for (let py = 0; py < height; py++) {
    for (let px = 0; px < width; px++) {
      const sum = [0, 0, 0];
      let covered = 0;
      for (let sy = 0; sy < s; sy++) {
        for (let sx = 0; sx < s; sx++) {
          const x = (px + (sx + 0.5) / s) / height;
          const y = (py + (sy + 0.5) / s) / height;
          let color = null;
          for (const part of scene.parts) if (part.inside(x, y)) color = part.color(x, y);
          if (color) covered++;
          else color = shade(scene.background(x, y), scene.shadow ? scene.shadow(x, y) : 1);
          sum[0] += color[0];
          sum[1] += color[1];
          sum[2] += color[2];
        }
      }
      const i = py * width + px;
      // Sensor-like noise, seeded: ±3 levels.
      const noise = (rand() - 0.5) * 6;
      for (let c = 0; c < 3; c++) rgba[4 * i + c] = Math.max(0, Math.min(255, Math.round(sum[c] / samples + noise)));
      rgba[4 * i + 3] = 255;
      mask[i] = covered * 2 >= samples ? 255 : 0;
    }
  }
  return { name, width, height, rgba, mask };
}

/** IoU of two masks thresholded at 128 (1 when both are empty). */
export function maskIoU(a, b) {
  let inter = 0;
  let uni = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] >= 128;
    const y = b[i] >= 128;
    if (x && y) inter++;
    if (x || y) uni++;
  }
  return uni === 0 ? 1 : inter / uni;
}

/** Writes `<scene>.png` and `<scene>.mask.png` for every scene into `dir`; returns the file paths. */
export async function writeScenes(dir, options = {}) {
  await mkdir(dir, { recursive: true });
  const written = [];
  for (const name of SCENE_NAMES) {
    const { width, height, rgba, mask } = renderScene(name, options);
    const image = join(dir, `${name}.png`);
    const maskPath = join(dir, `${name}.mask.png`);
    await writeFile(image, await sharp(rgba, { raw: { width, height, channels: 4 } }).png().toBuffer());
    await writeFile(maskPath, await sharp(Buffer.from(mask), { raw: { width, height, channels: 1 } }).png().toBuffer());
    written.push({ name, image, mask: maskPath });
  }
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const dir = args.find((a, i) => !a.startsWith("--") && !(args[i - 1] ?? "").startsWith("--"));
  if (!dir) {
    console.error("usage: node scripts/generate-product-shots.js <out-dir> [--width 1200] [--height 900] [--seed 1]");
    process.exit(2);
  }
  const flag = (name) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : undefined;
  };
  const files = await writeScenes(dir, { width: flag("width"), height: flag("height"), seed: flag("seed") });
  for (const f of files) console.log(`${f.name}: ${f.image}`);
}
