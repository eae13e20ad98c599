import sharp from "sharp";
import { describe, expect, test } from "vitest";
import type { HostLayer, HostRect } from "../../src/protocol/index.js";
import type { Harness } from "../helpers/bridge.js";
import type { Frame, TestClient } from "../helpers/ws-client.js";
import { conformanceMatrix } from "./_editors.js";
import { TRANSPORTS, type ConformanceTransport } from "./_transports.js";

const MATRIX = conformanceMatrix();

const EVENTS = ["selection:changed", "layer:selectionChange", "layer:previewChange", "documentChanged", "currentDocumentChanged", "closedDocument"];

describe.each(MATRIX)("live events from edits over $label", ({ editor, transport: { name, make } }) => {
  // The host-native events and the script API are the embedded editor's.
  const embedded = editor.name === "embedded";
  let harness: Harness;
  let t: ConformanceTransport;
  let watcher: TestClient;
  /** The sample document's id (not always 1: an editor process reused across cases keeps counting). */
  let sample: number;

  const setup = async (): Promise<void> => {
    harness = await editor.start();
    t = await make(harness);
    watcher = await harness.connect();
    for (const type of EVENTS) await watcher.call("event:subscribe", { type });
    sample = ((await ok("document:current")) as { id: number }).id;
  };
  const ok = async (method: string, params?: Record<string, unknown>): Promise<unknown> => {
    const outcome = await t.call(method, params);
    if (!outcome.ok) throw new Error(`${method} failed: ${JSON.stringify(outcome.error)}`);
    return outcome.result;
  };
  const nextOf = (type: string, after: number, match: (data: unknown) => boolean = () => true): Promise<Frame> =>
    watcher.next((f) => f.type === type && (f.seq ?? 0) > after && match(f.data));
  const lastSeq = (): number => Math.max(0, ...watcher.frames.map((f) => f.seq ?? 0));

  test.runIf(embedded)("edits through methods emit selection:changed, layer:selectionChange, layer:previewChange and documentChanged", async () => {
    await setup();
    let seq = lastSeq();
    const selection = nextOf("selection:changed", seq);
    const changed = nextOf("documentChanged", seq, (d) => (d as { selection: boolean }).selection);
    await ok("selection:set", { rect: { x: 1, y: 2, width: 30, height: 40 } });
    expect((await selection).data as HostRect).toEqual({ x: 1, y: 2, width: 30, height: 40 });
    expect((await changed).data).toMatchObject({ documentId: sample, selection: true, pixels: false });

    seq = lastSeq();
    const layers = (await ok("document:layers")) as HostLayer[];
    const target = layers[layers.length - 1]!;
    const selected = nextOf("layer:selectionChange", seq);
    const shown = nextOf("layer:previewChange", seq, (d) => (d as { id?: number } | null)?.id === target.id);
    await ok("layer:select", { ids: [target.id] });
    expect(((await selected).data as HostLayer[]).map((l) => l.id)).toEqual([target.id]);
    expect((await shown).data).toMatchObject({ documentId: sample, id: target.id, name: target.name });
  });

  test.runIf(embedded)("a pixel edit through a method (layer:importImage) emits layer:selectionChange, layer:previewChange and documentChanged", async () => {
    await setup();
    const seq = lastSeq();
    const png = (await sharp({ create: { width: 6, height: 4, channels: 4, background: "#ff0000" } }).png().toBuffer()).toString("base64");
    const active = nextOf("layer:selectionChange", seq);
    const preview = nextOf("layer:previewChange", seq, (d) => (d as { name?: string } | null)?.name === "Dot");
    const pixels = nextOf("documentChanged", seq, (d) => (d as { pixels: boolean }).pixels);
    const layer = (await ok("layer:importImage", { image: `data:image/png;base64,${png}`, name: "Dot" })) as HostLayer;
    expect(((await active).data as HostLayer[]).map((l) => l.id)).toEqual([layer.id]);
    expect((await preview).data).toMatchObject({ id: layer.id, width: 6, height: 4 });
    expect((await pixels).data).toMatchObject({ documentId: sample, pixels: true, layers: true, activeLayers: true });
  });

  test.runIf(embedded)("an edit through a script emits the same events once it ends", async () => {
    await setup();
    const seq = lastSeq();
    const selection = nextOf("selection:changed", seq);
    const active = nextOf("layer:selectionChange", seq);
    const preview = nextOf("layer:previewChange", seq, (d) => (d as { name?: string } | null)?.name === "Painted");
    const changed = nextOf("documentChanged", seq);
    const script = `const doc = app.activeDocument;
      const layer = doc.artLayers.add("Painted");
      doc.selection.select({ x: 0, y: 0, width: 50, height: 50 });
      layer.fill("#00ff00");
      layer.id`;
    // Scripts have no HTTP route: the script runs over WS whichever transport this case exercises otherwise.
    const runner = name === "ws" ? t : await TRANSPORTS[0].make(harness);
    const outcome = await runner.call("jsx:run", { script });
    expect(outcome.ok).toBe(true);
    const id = (outcome.result as { result: number }).result;
    expect((await selection).data).toEqual({ x: 0, y: 0, width: 50, height: 50 });
    expect(((await active).data as HostLayer[]).map((l) => l.id)).toEqual([id]);
    expect((await preview).data).toMatchObject({ id, width: 50, height: 50 });
    expect((await changed).data).toEqual({ documentId: sample, revision: 1, pixels: true, selection: true, activeLayers: true, layers: true });
  });

  test.runIf(embedded)("creating and closing documents emits currentDocumentChanged and closedDocument", async () => {
    await setup();
    let seq = lastSeq();
    const current = nextOf("currentDocumentChanged", seq);
    const created = (await ok("document:create", { width: 10, height: 10 })) as { id: number };
    expect((await current).data).toEqual({ documentId: created.id });
    seq = lastSeq();
    const closed = nextOf("closedDocument", seq);
    const back = nextOf("currentDocumentChanged", seq);
    await ok("document:close", {});
    expect((await closed).data).toEqual({ documentId: created.id });
    // Over HTTP (no logical client) a new document goes to the least loaded editor of a pool, where it was the
    // only one: closing it leaves that editor without a current document.
    expect((await back).data).toEqual({ documentId: editor.editors > 1 && name === "http" ? null : sample });
  });
});
