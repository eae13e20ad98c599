import type { BridgeOptions } from "../../src/bridge/options.js";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initializeCanvas, readPsd } from "ag-psd";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { DataLoss } from "../../src/protocol/index.js";
import type { Harness } from "../helpers/bridge.js";
import { diskFullMidWrite, silentlyTruncatedWrites } from "../helpers/disk-full.js";
import { flattenedPsd, psdWithoutImage, textAndIccPsd } from "../helpers/psd-fixtures.js";
import { itFor, conformanceMatrix } from "./_editors.js";
import type { ConformanceTransport, Outcome } from "./_transports.js";

let base = "";
/**
 * The files root of every case: one folder for the whole file, emptied before each case, so the cases share the
 * file's editor process (a new root would make a new one) and each still starts from an empty root.
 */
let dir = "";
let poster: Buffer;
beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "bridge-saves-conf-")));
  dir = join(base, "root");
  await mkdir(dir);
  poster = await textAndIccPsd();
  initializeCanvas(
    (width: number, height: number) => ({ width, height }) as never,
    (width: number, height: number) => ({ width, height, data: new Uint8ClampedArray(width * height * 4) }) as never,
  );
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const MATRIX = conformanceMatrix({ gimpPool: true });

describe.each(MATRIX)("saving without losing data over $label", ({ editor, transport: { name: transportName, make } }) => {
  const it = itFor(editor);
  const itEmbedded = test.runIf(editor.name === "embedded");
  let harness: Harness;
  let t: ConformanceTransport;
  const setup = async (options: BridgeOptions = {}): Promise<void> => {
    // The folder itself stays (the editor was made for it); only what the last case left in it goes.
    await Promise.all((await readdir(dir)).map((name) => rm(join(dir, name), { recursive: true, force: true })));
    harness = await editor.start({ ...options, files: { roots: [dir] } });
    t = await make(harness);
  };
  const ok = (outcome: Outcome): Record<string, unknown> => {
    if (!outcome.ok) throw new Error(`call failed: ${JSON.stringify(outcome.error)}`);
    return outcome.result as Record<string, unknown>;
  };
  const pixel = async (): Promise<number[]> => {
    const image = ok(await t.call("image:exportDocument", { format: "png" })) as { data: string };
    const { data } = await sharp(Buffer.from(image.data.split(",")[1]!, "base64")).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return [...data.subarray(0, 4)];
  };

  it("a flattened PSD opens as one background layer holding its picture", async () => {
    await setup();
    await writeFile(join(dir, "flat.psd"), flattenedPsd(20, 10, [10, 200, 30, 255]));
    const doc = ok(await t.call("document:open", { path: "flat.psd" }));
    expect(doc).toMatchObject({ width: 20, height: 10 });
    const layers = ok(await t.call("document:layers", { documentId: doc["id"] })) as unknown as Array<{ name: string; rect: { width: number } }>;
    expect(layers).toHaveLength(1);
    expect(layers[0]).toMatchObject({ name: "Background", rect: { width: 20 } });
    expect(await pixel()).toEqual([10, 200, 30, 255]);
  });

  itEmbedded("a PSD with neither layers nor a merged image is refused with a named reason", async () => {
    await setup();
    await writeFile(join(dir, "empty.psd"), psdWithoutImage(20, 10));
    const outcome = await t.call("document:open", { path: "empty.psd" });
    expect(outcome.error).toMatchObject({ code: "BAD_REQUEST", details: { reason: "noImage" } });
  });

  it("a save that would drop the text layer answers WOULD_LOSE_DATA and leaves the file as it was; allowLossy saves and keeps .bak", async () => {
    await setup();
    const path = join(dir, "poster.psd");
    await writeFile(path, poster);
    // The embedded editor keeps text layers and the ICC profile; painting on the text layer makes it pixels, which a
    // save must then report. Scripts are WS-only, so a WS client opens and paints on either transport (on a pool,
    // the document then lives on that client's editor) and the save under test names the document.
    let documentId: number | undefined;
    if (editor.name === "embedded") {
      const painter = await harness.connect();
      const opened = await painter.send("document:open", { path: "poster.psd" });
      documentId = (opened.result as { id: number }).id;
      expect((await painter.send("jsx:run", { script: 'app.activeDocument.layerById(3).fill("#ff0000")' })).ok).toBe(true);
    } else {
      ok(await t.call("document:open", { path: "poster.psd" }));
    }
    const which = documentId === undefined ? {} : { documentId };
    const refused = await t.call("document:save", which);
    expect(refused.error).toMatchObject({ code: "WOULD_LOSE_DATA", retryable: false, details: { path } });
    if (transportName === "http") expect(refused.status).toBe(409);
    const wouldLose = refused.error!.details!["wouldLose"] as DataLoss[];
    expect(wouldLose).toContainEqual(expect.objectContaining({ kind: "textLayers", count: 1 }));
    if (editor.name === "embedded") {
      // It knows which layer is the text layer, and drops nothing else.
      expect(wouldLose).toEqual([{ kind: "textLayers", count: 1, layerIds: [3] }]);
    }
    expect((await readFile(path)).equals(poster)).toBe(true);
    // A new path loses the same data: the user must agree there too.
    expect((await t.call("document:save", { ...which, savePath: "copy.psd" })).error?.code).toBe("WOULD_LOSE_DATA");
    await expect(stat(join(dir, "copy.psd"))).rejects.toThrow();
    const saved = ok(await t.call("document:save", { ...which, allowLossy: true }));
    expect(saved).toMatchObject({ path, backupPath: `${path}.bak`, dropped: wouldLose });
    expect((await readFile(`${path}.bak`)).equals(poster)).toBe(true);
    expect(readPsd(await readFile(path), { skipLayerImageData: true, skipCompositeImageData: true }).width).toBe(48);
    expect((await readdir(dir)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("backupOnOverwrite: false replaces the file without keeping a .bak", async () => {
    await setup();
    // A small new document: what is saved does not matter here, and each of the three saves writes all of it.
    ok(await t.call("document:create", { width: 16, height: 12 }));
    ok(await t.call("document:save", { savePath: "plain.psd" }));
    ok(await t.call("document:save", { backupOnOverwrite: false }));
    await expect(stat(join(dir, "plain.psd.bak"))).rejects.toThrow();
    ok(await t.call("document:save", {}));
    expect((await stat(join(dir, "plain.psd.bak"))).isFile()).toBe(true);
  });

  itEmbedded("a save interrupted by a full disk leaves the original intact and no temporary file", async () => {
    // The disk is made full by patching this process's file writes, so the editor runs in this process here.
    await setup({ embedded: { isolation: "inline" } });
    const path = join(dir, "poster.psd");
    await writeFile(path, poster);
    ok(await t.call("document:open", { path: "poster.psd" }));
    const restore = await diskFullMidWrite(base);
    let outcome: Outcome;
    try {
      outcome = await t.call("document:save", { allowLossy: true });
    } finally {
      restore();
    }
    expect(outcome.error).toMatchObject({ code: "BAD_REQUEST", details: { reason: "ENOSPC" } });
    expect((await readFile(path)).equals(poster)).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(["poster.psd"]);
  });

  itEmbedded("a save whose written bytes are damaged answers INTERNAL and leaves the original byte for byte, with no temporary file", async () => {
    // The fault is injected into this process's file writes (half of each write lands, all of it is reported), so
    // the editor runs in this process here; only reading the file back before the rename can notice.
    await setup({ embedded: { isolation: "inline" } });
    const path = join(dir, "poster.psd");
    await writeFile(path, poster);
    ok(await t.call("document:open", { path: "poster.psd" }));
    const restore = await silentlyTruncatedWrites(base);
    let outcome: Outcome;
    try {
      outcome = await t.call("document:save", { allowLossy: true });
    } finally {
      restore();
    }
    expect(outcome.error).toMatchObject({ code: "INTERNAL", details: { reason: "readBack" } });
    expect(outcome.error?.message).toMatch(/does not read back/);
    expect((await readFile(path)).equals(poster)).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(["poster.psd"]);
  });

  itEmbedded("two concurrent saves to one path, 50 times: both succeed, the file is one document and .bak the other, never a mix", async () => {
    await setup();
    const a = ok(await t.call("document:create", { width: 10, height: 10, background: "#ff0000" }))["id"];
    const b = ok(await t.call("document:create", { width: 20, height: 20, background: "#0000ff" }))["id"];
    const reference = async (id: unknown, name: string): Promise<Buffer> => {
      ok(await t.call("document:save", { documentId: id, savePath: name }));
      return readFile(join(dir, name));
    };
    const [bytesA, bytesB] = [await reference(a, "a.psd"), await reference(b, "b.psd")];
    for (let run = 0; run < 50; run++) {
      const [sa, sb] = await Promise.all([
        t.call("document:save", { documentId: a, savePath: "shared.psd" }),
        t.call("document:save", { documentId: b, savePath: "shared.psd" }),
      ]);
      expect([sa.ok, sb.ok], `run ${run}`).toEqual([true, true]);
      const [file, backup] = [await readFile(join(dir, "shared.psd")), await readFile(join(dir, "shared.psd.bak"))];
      const which = (bytes: Buffer): string => (bytes.equals(bytesA) ? "a" : bytes.equals(bytesB) ? "b" : "a mix");
      expect([which(file), which(backup)].sort(), `run ${run}`).toEqual(["a", "b"]);
    }
  });

  it("an export never replaces the file an open document was read from unless overwrite: true", async () => {
    await setup();
    const path = join(dir, "photo.png");
    const original = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#336699" } }).png().toBuffer();
    await writeFile(path, original);
    ok(await t.call("document:open", { path: "photo.png" }));
    const refused = await t.call("document:export", { path: "photo.png" });
    expect(refused.error).toMatchObject({ code: "WOULD_LOSE_DATA", details: { wouldLose: [expect.objectContaining({ kind: "sourceFile" })] } });
    expect((await readFile(path)).equals(original)).toBe(true);
    expect(ok(await t.call("document:export", { path: "photo.png", overwrite: true }))).toMatchObject({ path, format: "png" });
    expect(ok(await t.call("document:export", { path: "other.png" }))).toMatchObject({ format: "png" });
  });

  it("a save of a document that has no file yet needs savePath", async () => {
    await setup();
    ok(await t.call("document:create", { width: 8, height: 8 }));
    expect((await t.call("document:save", {})).error).toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("savePath") });
  });
});
