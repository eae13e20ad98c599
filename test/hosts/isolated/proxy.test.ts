import { pino } from "pino";
import { firstValueFrom, filter, type Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import { createEmbeddedHost } from "../../../src/hosts/embedded/index.js";
import type { HostAdapter, PreviewEvent } from "../../../src/hosts/host.js";
import { isBridgeError, type HostRect } from "../../../src/protocol/index.js";
import { importBytes, rawPixels, pixelAt, solidPng } from "../embedded/helpers.js";
import type { IsolatedHost } from "../../../src/hosts/isolated/index.js";
import { ctx, isolatedForFile, record, startIsolated } from "./_support.js";

const RED = [255, 0, 0, 255] as const;

/** Creates the same small document on an editor and exports it as PNG at its own size. */
async function redDocumentPng(host: HostAdapter): Promise<Uint8Array> {
  const doc = await host.createDocument!(ctx(), { width: 64, height: 32, name: "Red", background: RED });
  const image = await host.exportDocumentImage(ctx(), { documentId: doc.id, format: "png", size: { width: 64, height: 32 } });
  return image.bytes;
}

describe("isolated embedded editor: calls through the proxy", () => {
  const shared = isolatedForFile({ sample: false });
  /**
   * The file's editor process with no document open, as a new one with `sample: false` starts: the cases that check
   * what crosses the process boundary share it (only one of them subscribes to a stream).
   */
  async function emptyEditor(): Promise<IsolatedHost> {
    const host = await shared();
    for (const doc of await host.listDocuments(ctx())) await host.closeDocument!(ctx(), doc.id);
    return host;
  }

  it("has the embedded editor's shape: kind, event types plus editor:restarted, script language, every operation", async () => {
    const host = await emptyEditor();
    const embedded = createEmbeddedHost({ sample: false });
    expect(host.kind).toBe(embedded.kind);
    expect(host.filesystem).toBe("local");
    expect(host.scriptLanguage).toEqual(embedded.scriptLanguage);
    expect(host.eventTypes).toEqual([...(embedded.eventTypes ?? []), "editor:restarted"]);
    for (const [name, member] of Object.entries(embedded)) {
      if (typeof member === "function") expect(typeof (host as unknown as Record<string, unknown>)[name], name).toBe("function");
    }
    expect(host.events("no:such-event")).toBeUndefined();
    expect(host.pid).toBeGreaterThan(0);
    expect(host.pid).not.toBe(process.pid);
  });

  it("createDocument and exportDocumentImage answer what the in-process editor answers, byte for byte", async () => {
    const host = await emptyEditor();
    const bytes = await redDocumentPng(host);
    expect(Buffer.from(bytes).equals(Buffer.from(await redDocumentPng(createEmbeddedHost({ sample: false }))))).toBe(true);
    const pixels = await rawPixels(bytes);
    expect([pixels.width, pixels.height]).toEqual([64, 32]);
    expect(pixelAt(pixels, 0, 0)).toEqual([...RED]);
    expect(pixelAt(pixels, 63, 31)).toEqual([...RED]);
  });

  it("image bytes travel to the editor too: an imported PNG comes back in the layer's export", async () => {
    const host = await emptyEditor();
    const doc = await host.createDocument!(ctx(), { width: 40, height: 40, name: "Doc", background: [255, 255, 255, 255] });
    const layerId = await importBytes(host, await solidPng(10, 20, [0, 0, 255, 255]), { documentId: doc.id, position: { x: 5, y: 5 } });
    const image = await host.exportLayerImage(ctx(), { documentId: doc.id, layerId, format: "png", size: { width: 10, height: 20 } });
    expect(image.bounds).toMatchObject({ left: 5, top: 5 });
    expect(pixelAt(await rawPixels(image.bytes), 9, 19)).toEqual([0, 0, 255, 255]);
  });

  it("live events arrive, layer:previewChange with its PNG bytes", async () => {
    const host = await startIsolated({ sample: true });
    const preview = firstValueFrom((host.events("layer:previewChange") as Observable<PreviewEvent | null>).pipe(filter((e) => e !== null)));
    // The new document's (empty) selection, then the two changes.
    const selections = record(host.events("selection:changed") as Observable<HostRect | null>, 3);
    const doc = await host.createDocument!(ctx(), { width: 50, height: 40, name: "Events", background: RED });
    const rect = { x: 1, y: 2, width: 10, height: 5 };
    await host.setSelection!(ctx(), { documentId: doc.id, shape: { kind: "rect", rect } });
    await host.setSelection!(ctx(), { documentId: doc.id, shape: null });
    expect(await selections).toEqual([null, rect, null]);
    const event = (await preview)!;
    expect(event.documentId).toBe(doc.id);
    expect(event.image.bytes).toBeInstanceOf(Uint8Array);
    const pixels = await rawPixels(event.image.bytes);
    expect([pixels.width, pixels.height]).toEqual([50, 40]);
    expect(pixelAt(pixels, 0, 0)).toEqual([...RED]);
  });

  it("a stream keeps delivering while any subscriber is left, and again after everyone left and came back", async () => {
    const host = await emptyEditor();
    const doc = await host.createDocument!(ctx(), { width: 20, height: 20, name: "Refs", background: RED });
    const select = (x: number) => host.setSelection!(ctx(), { documentId: doc.id, shape: { kind: "rect", rect: { x, y: 0, width: 2, height: 2 } } });
    const stream = host.events("selection:changed") as Observable<HostRect | null>;
    const first = stream.subscribe(() => {});
    const second = record(stream, 1);
    first.unsubscribe();
    await select(1);
    expect((await second)[0]).toMatchObject({ x: 1 });
    const again = record(stream, 1);
    await select(3);
    expect((await again)[0]).toMatchObject({ x: 3 });
  });

  it("errors come back as the editor threw them: a BridgeError with code and details, a script's failure as JSX_FAILED", async () => {
    const host = await emptyEditor();
    const missing = await host.getDocument(ctx(), 99).catch((error: unknown) => error);
    expect(isBridgeError(missing)).toBe(true);
    expect(missing).toMatchObject({ code: "DOCUMENT_NOT_FOUND", details: { documentId: 99 } });
    const failed = await host.runScript!(ctx(), { source: "throw new Error('boom')", language: "javascript", params: undefined, timeoutMs: 5000 }).catch(
      (error: unknown) => error,
    );
    expect(failed).toMatchObject({ code: "JSX_FAILED", message: expect.stringContaining("boom") });
    expect(await host.getDocument(ctx(), undefined).catch((error: unknown) => error)).toMatchObject({ code: "NO_DOCUMENT" });
  });

  it("calls run concurrently and each gets its own answer", async () => {
    const host = await startIsolated({ sample: true });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, n) =>
        n % 2 === 0
          ? host.runScript!(ctx(), { source: "params.n * 2", language: "javascript", params: { n }, timeoutMs: 5000 })
          : host.getDocument(ctx(), 1).then((doc) => doc.id * 100 + n),
      ),
    );
    expect(answers).toEqual(Array.from({ length: 12 }, (_, n) => (n % 2 === 0 ? n * 2 : 100 + n)));
  });

  it("the editor's log lines reach the bridge's logger with actor editor", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const host = await startIsolated({ sample: true, logger });
    await host.autoCutout!(ctx(), { documentId: 1, layerId: 3 });
    const cutout = lines.find((line) => typeof line["msg"] === "string" && (line["msg"] as string).startsWith("autoCutout by "));
    expect(cutout).toMatchObject({ actor: "editor", level: 30 });
    expect(cutout?.["cutout"]).toMatchObject({ documentId: 1, layerId: 3, action: "autoCutout" });
  });
});
