import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { writePsdBuffer } from "ag-psd";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { BridgeOptions } from "../../src/bridge/options.js";
import type { Harness } from "../helpers/bridge.js";
import { solid } from "../helpers/psd-fixtures.js";
import { itFor, conformanceMatrix } from "./_editors.js";
import type { ConformanceTransport, Outcome } from "./_transports.js";

/** Read limits small enough that a test file is over them. */
const SMALL_LIMIT = 64 * 1024;

let base = "";
let root = "";
let outside = "";
beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "bridge-files-conf-")));
  root = join(base, "root");
  outside = join(base, "outside");
  await mkdir(join(root, "out"), { recursive: true });
  await mkdir(outside);
  const png = await sharp({ create: { width: 12, height: 9, channels: 4, background: "#3366ff" } }).png().toBuffer();
  await writeFile(join(root, "blue.png"), png);
  await writeFile(join(root, "layers.psd"), writePsdBuffer({ width: 16, height: 12, children: [{ name: "Only", id: 1, imageData: solid(16, 12, [0, 128, 0, 255]) }] }));
  await writeFile(join(outside, "secret.png"), png);
  await writeFile(join(root, "big.psd"), Buffer.alloc(SMALL_LIMIT + 1));
  await writeFile(join(root, "big.png"), Buffer.alloc(SMALL_LIMIT + 1));
  await symlink(join(outside, "secret.png"), join(root, "escape.png"));
  await symlink("/dev/zero", join(root, "zero.png"));
  execFileSync("mkfifo", [join(root, "pipe.psd")]);
  execFileSync("mkfifo", [join(root, "pipe.png")]);
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const confined = (): BridgeOptions => ({
  files: { roots: [root] },
  limits: { maxOpenFileBytes: SMALL_LIMIT, maxImportBytes: SMALL_LIMIT },
});

/** Every way a path can try to leave the root or take the machine down, and the code it must get. */
const HOSTILE = (): Array<[string, string, string]> => [
  ["'..'", "../outside/secret.png", "FORBIDDEN"],
  ["an absolute path outside", join(outside, "secret.png"), "FORBIDDEN"],
  ["a symlink out of the root", "escape.png", "FORBIDDEN"],
  ["a .png symlink to /dev/zero", "zero.png", "FORBIDDEN"],
  ["a FIFO", "pipe.psd", "BAD_REQUEST"],
  ["a file over the size limit", "big.psd", "PAYLOAD_TOO_LARGE"],
];

/** The error code of a refused call; `undefined` when it succeeded. */
const code = (outcome: Outcome): string | undefined => (outcome.ok ? undefined : outcome.error?.code);

const MATRIX = conformanceMatrix({ gimpPool: true });

describe.each(MATRIX)("file access over $label", ({ editor, transport: { name: transportName, make } }) => {
  const it = itFor(editor);
  let harness: Harness;
  let t: ConformanceTransport;
  const setup = async (options: BridgeOptions = confined()): Promise<void> => {
    harness = await editor.start(options);
    t = await make(harness);
  };

  it("document:open refuses '..', paths outside, symlinks out, a link to /dev/zero, a FIFO and a file over the limit", async () => {
    await setup();
    const rss = process.memoryUsage().rss;
    for (const [what, path, expected] of HOSTILE()) {
      const outcome = await t.call("document:open", { path });
      expect(code(outcome), what).toBe(expected);
      if (expected === "FORBIDDEN") expect(outcome.error?.message, what).toContain(root);
      // A link out is refused without saying where it leads.
      if (!path.includes("outside")) {
        expect(JSON.stringify(outcome.error), what).not.toContain(outside);
        expect(JSON.stringify(outcome.error), what).not.toContain("/dev/zero");
      }
    }
    // Nothing was read from the device: the bridge's memory did not grow by the device's worth.
    expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 1024 * 1024);
    expect(code(await t.call("document:current"))).toBeUndefined();
  });

  it("layer:importImage refuses the same paths, as plain paths and as file: URIs", async () => {
    await setup();
    const hostile = HOSTILE().map(([what, path, expected]): [string, string, string] => [what, path.replace("big.psd", "big.png").replace("pipe.psd", "pipe.png"), expected]);
    for (const [what, path, expected] of hostile) {
      expect(code(await t.call("layer:importImage", { image: path })), what).toBe(expected);
      if (path.startsWith("/")) expect(code(await t.call("layer:importImage", { image: pathToFileURL(path).href })), `${what} (file:)`).toBe(expected);
    }
  });

  it("inside the root, open, import, save and export work; save and export outside are FORBIDDEN", async () => {
    await setup();
    const opened = await t.call("document:open", { path: "blue.png" });
    expect(opened.result).toMatchObject({ width: 12, height: 9, filePath: join(root, "blue.png") });
    expect((await t.call("document:open", { path: join(root, "layers.psd") })).result).toMatchObject({ width: 16, height: 12 });
    expect((await t.call("layer:importImage", { image: join(root, "blue.png") })).ok).toBe(true);
    const saved = await t.call("document:save", { savePath: `out/${transportName}.psd` });
    expect(saved.result).toMatchObject({ path: join(root, "out", `${transportName}.psd`) });
    expect((await stat(join(root, "out", `${transportName}.psd`))).size).toBeGreaterThan(0);
    const exported = await t.call("document:export", { path: join(root, "out", `${transportName}.png`) });
    expect(exported.result).toMatchObject({ format: "png", width: 16, height: 12 });
    // A format that disagrees with the path's extension is refused, before anything is written.
    const mismatch = await t.call("document:export", { path: `out/${transportName}-mismatch.png`, format: "jpeg" });
    expect(mismatch.error).toMatchObject({ code: "BAD_REQUEST", details: { format: "jpeg", pathFormat: "png" } });
    await expect(stat(join(root, "out", `${transportName}-mismatch.png`))).rejects.toMatchObject({ code: "ENOENT" });
    expect((await t.call("document:export", { path: `out/${transportName}-same.JPG`, format: "jpeg" })).result).toMatchObject({ format: "jpeg" });
    expect((await t.call("document:export", { path: `out/${transportName}-bytes.out`, format: "webp" })).result).toMatchObject({ format: "webp" });
    expect(code(await t.call("document:save", { savePath: join(outside, "x.psd") }))).toBe("FORBIDDEN");
    expect(code(await t.call("document:save", { savePath: "../outside/x.psd" }))).toBe("FORBIDDEN");
    expect(code(await t.call("document:export", { path: join(outside, "x.png") }))).toBe("FORBIDDEN");
    expect(code(await t.call("document:export", { path: "escape.png", overwrite: true }))).toBe("FORBIDDEN");
    expect((await readFile(join(outside, "secret.png"))).length).toBeGreaterThan(0);
  });

  test.runIf(transportName === "ws")(`getServerInfo and GET /status list the files roots (${editor.label})`, async () => {
    await setup();
    expect((await t.call("getServerInfo")).result).toMatchObject({ filesRoots: [root] });
    const status = (await (await harness.http("/status")).json()) as { files: { roots: string[] }; editor: { kind: string } };
    expect(status.files.roots).toEqual([root]);
    expect(status.editor.kind).toBe(editor.name);
  });

  test.runIf(transportName === "ws")(`jsx:run is ${editor.name === "embedded" ? "allowed" : "refused"} while confined (${editor.label})`, async () => {
    const script = editor.name === "gimp" ? { script: "(+ 1 2)", language: "script-fu" } : { script: "1 + 2" };
    await setup();
    const outcome = await t.call("jsx:run", script);
    if (editor.name === "embedded") {
      expect(outcome.result).toEqual({ result: 3 });
    } else {
      expect(outcome.error).toMatchObject({ code: "FORBIDDEN", details: { capability: "jsx:run", roots: [root] } });
      expect(code(await t.call("jsx:execute", { name: "anything" }))).toBe("FORBIDDEN");
      await setup({ files: { roots: [root], allowEditorScripts: true } });
      expect(code(await t.call("jsx:run", script))).not.toBe("FORBIDDEN");
    }
  });

  test.runIf(editor.name === "embedded" && transportName === "ws")("the script API's open, save and export use the same roots", async () => {
    await setup();
    for (const [what, path, expected] of HOSTILE()) {
      const outcome = await t.call("jsx:run", { script: `app.open(${JSON.stringify(path)})` });
      expect(outcome.error, what).toMatchObject({ code: "JSX_FAILED", details: { code: expected } });
    }
    const inside = await t.call("jsx:run", {
      script: `(async () => { const doc = await app.open("blue.png"); await doc.save("out/script.psd", { allowLossy: true }); return (await doc.exportDocument("out/script.jpg")).format; })()`,
    });
    expect(inside.result).toEqual({ result: "jpeg" });
    const out = await t.call("jsx:run", { script: `app.activeDocument.save(${JSON.stringify(join(outside, "s.psd"))})` });
    expect(out.error).toMatchObject({ code: "JSX_FAILED", details: { code: "FORBIDDEN" } });
  });
});

// Unconfined bridges come after every confined case: the embedded editor process is made for its files roots, so
// running the confined cases together (then these) lets each group share one process instead of alternating.
describe.each(MATRIX)("file access without roots over $label", ({ editor, transport: { make } }) => {
  const it = itFor(editor);
  let t: ConformanceTransport;

  it("without roots (loopback), paths are unconfined but devices and FIFOs are still refused", async () => {
    t = await make(await editor.start({ limits: { maxOpenFileBytes: SMALL_LIMIT } }));
    expect((await t.call("document:open", { path: join(outside, "secret.png") })).ok).toBe(true);
    expect(code(await t.call("document:open", { path: join(root, "zero.png") }))).toBe("BAD_REQUEST");
    expect(code(await t.call("document:open", { path: join(root, "pipe.psd") }))).toBe("BAD_REQUEST");
    expect(code(await t.call("document:open", { path: join(root, "big.psd") }))).toBe("PAYLOAD_TOO_LARGE");
  });
});
