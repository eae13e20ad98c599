import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writePsdBuffer } from "ag-psd";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostAdapter } from "../../../src/hosts/host.js";
import type { FileFormat } from "../../../src/protocol/index.js";
import { connectedHost, ctx } from "./helpers.js";

function solid(width: number, height: number, rgba: [number, number, number, number]): { width: number; height: number; data: Uint8ClampedArray } {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
  return { width, height, data };
}

/** A 300 dpi PSD: an opaque background, or (`transparent`) a layer over nothing. */
function psdAt300(transparent: boolean): Buffer {
  const background = transparent ? { name: "Spot", left: 2, top: 2, imageData: solid(4, 4, [200, 10, 10, 255]) } : { name: "Background", imageData: solid(16, 12, [20, 120, 220, 255]) };
  return writePsdBuffer({
    width: 16,
    height: 12,
    imageResources: { resolutionInfo: { horizontalResolution: 300, horizontalResolutionUnit: "PPI", widthUnit: "Inches", verticalResolution: 300, verticalResolutionUnit: "PPI", heightUnit: "Inches" } },
    children: [background],
  });
}

/** XResolution (tag 0x011a, a rational) of IFD0 in an EXIF block as sharp returns it (`Exif\0\0`, then a TIFF header). */
function exifXResolution(exif: Buffer): number | undefined {
  const tiff = 6;
  const le = exif.toString("latin1", tiff, tiff + 2) === "II";
  const u16 = (at: number): number => (le ? exif.readUInt16LE(at) : exif.readUInt16BE(at));
  const u32 = (at: number): number => (le ? exif.readUInt32LE(at) : exif.readUInt32BE(at));
  const ifd = tiff + u32(tiff + 4);
  for (let i = 0; i < u16(ifd); i++) {
    const entry = ifd + 2 + i * 12;
    if (u16(entry) !== 0x011a) continue;
    const at = tiff + u32(entry + 8);
    return u32(at) / u32(at + 4);
  }
  return undefined;
}

describe("exports carry the document's resolution; an opaque document has no alpha unless asked", () => {
  let host: HostAdapter;
  let dir: string;
  let opaque: number;
  let clear: number;

  beforeAll(async () => {
    host = await connectedHost({ sample: false });
    dir = await mkdtemp(join(tmpdir(), "bridge-export-meta-"));
    await writeFile(join(dir, "opaque.psd"), psdAt300(false));
    await writeFile(join(dir, "clear.psd"), psdAt300(true));
    opaque = (await host.openDocument!(ctx(), join(dir, "opaque.psd"))).id;
    clear = (await host.openDocument!(ctx(), join(dir, "clear.psd"))).id;
  });
  afterAll(async () => {
    await host?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const exportOf = async (documentId: number, format: FileFormat, alpha?: boolean) =>
    sharp((await host.exportDocumentImage(ctx(), { documentId, format, size: { width: 16, height: 12 }, ...(alpha === undefined ? {} : { alpha }) })).bytes);

  it("PNG, JPEG and TIFF say 300 dpi; WebP carries it in EXIF", async () => {
    for (const format of ["png", "jpeg", "tiff"] as const) expect((await (await exportOf(opaque, format)).metadata()).density).toBe(300);
    const webp = await (await exportOf(opaque, "webp")).metadata();
    expect(exifXResolution(webp.exif!)).toBe(300);
  });

  it("an opaque document has no alpha channel in PNG, WebP or TIFF, unless alpha: true; a transparent one keeps it", async () => {
    for (const format of ["png", "webp", "tiff"] as const) {
      expect((await (await exportOf(opaque, format)).metadata()).hasAlpha).toBe(false);
      expect((await (await exportOf(clear, format)).metadata()).hasAlpha).toBe(true);
    }
    // WebP's encoder drops an alpha channel no pixel uses, whatever is asked.
    for (const format of ["png", "tiff"] as const) expect((await (await exportOf(opaque, format, true)).metadata()).hasAlpha).toBe(true);
    // Same pixels either way.
    const [rgb, rgba] = await Promise.all([(await exportOf(opaque, "png")).raw().toBuffer(), (await exportOf(opaque, "png", true)).removeAlpha().raw().toBuffer()]);
    expect(Buffer.compare(rgb, rgba)).toBe(0);
  });
});

describe("a damaged PSD is refused naming what is wrong and where", () => {
  let host: HostAdapter;
  let dir: string;

  beforeAll(async () => {
    host = await connectedHost({ sample: false });
    dir = await mkdtemp(join(tmpdir(), "bridge-bad-psd-"));
  });
  afterAll(async () => {
    await host?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const openBytes = async (name: string, bytes: Buffer) => {
    await writeFile(join(dir, name), bytes);
    return host.openDocument!(ctx(), join(dir, name));
  };

  it("a header with height 0 is refused on open, not opened as 900×0", async () => {
    const bytes = Buffer.from(psdAt300(false));
    bytes.writeUInt32BE(0, 14);
    await expect(openBytes("flat.psd", bytes)).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/16×0.*header, byte 14/),
      details: { section: "header", offset: 14 },
    });
  });

  it("a section running past the end of the file names the section and its offset", async () => {
    const whole = psdAt300(false);
    const resourcesAt = 26 + 4 + whole.readUInt32BE(26);
    await expect(openBytes("cut.psd", whole.subarray(0, resourcesAt + 20))).rejects.toMatchObject({
      code: "BAD_REQUEST",
      details: { section: "image resources", offset: resourcesAt },
    });
    const wrongVersion = Buffer.from(whole);
    wrongVersion.writeUInt16BE(7, 4);
    await expect(openBytes("v7.psd", wrongVersion)).rejects.toMatchObject({ details: { section: "header", offset: 4, reason: expect.stringMatching(/version 7/) } });
  });
});
