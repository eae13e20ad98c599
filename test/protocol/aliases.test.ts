import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostLayer } from "../../src/protocol/index.js";
import { startBridge, type Harness } from "../helpers/bridge.js";
import type { Frame, TestClient } from "../helpers/ws-client.js";

/*
 * Clients written for the Generator bridge service send their own parameter shapes; each fixture frame must get
 * the answer the same request in this bridge's names gets, on a real bridge over a real WebSocket.
 */

interface LegacyFrame {
  readonly alias: string;
  readonly method: string;
  readonly legacy: unknown;
  readonly own: unknown;
  /** Changes the document. */
  readonly mutates?: boolean;
}

const FIXTURES = JSON.parse(readFileSync(join(import.meta.dirname, "../fixtures/legacy-frames.json"), "utf8")) as { frames: LegacyFrame[] };

/** A 1×1 opaque PNG. */
const PNG =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const OPTIONS = { embedded: { isolation: "inline" as const } };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "aliases-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Sample {
  readonly group: HostLayer;
  readonly pixel: HostLayer;
}

async function sampleOf(client: TestClient): Promise<Sample> {
  const layers = (await client.send("document:layers", {})).result as HostLayer[];
  const group = layers.find((layer) => layer.kind === "group" && (layer.children?.length ?? 0) > 0);
  const pixel = group?.children?.find((layer) => layer.kind === "pixel");
  if (group === undefined || pixel === undefined) throw new Error("the sample document has no group with a pixel layer");
  return { group, pixel };
}

const PLACEHOLDER = /\$(?:(group|pixel)\.(index|id)|path|png)/g;

/** The fixture's `$` placeholders filled in with the sample's values; a string that is one placeholder takes its type. */
function fill(value: unknown, sample: Sample): unknown {
  if (typeof value === "string") {
    const sampled = (token: string, layer?: string, field?: string): string | number => {
      if (token === "$path") return join(dir, "export.jpg");
      if (token === "$png") return PNG;
      return sample[layer as keyof Sample][field as "id" | "index"];
    };
    const whole = new RegExp(`^(?:${PLACEHOLDER.source})$`).exec(value);
    if (whole) return sampled(whole[0], whole[1], whole[2]);
    return value.replace(PLACEHOLDER, (token: string, layer?: string, field?: string) => String(sampled(token, layer, field)));
  }
  if (Array.isArray(value)) return value.map((item) => fill(item, sample));
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, sample)]));
  return value;
}

/** What a caller can compare of an answer: success and result, or the error's code, message and details. */
function answerOf(frame: Frame): unknown {
  return frame.ok ? { ok: true, result: frame.result } : { ok: false, code: frame.error?.code, message: frame.error?.message, details: frame.error?.details };
}

/** A bridge on the embedded editor showing the sample document, and a client of it; stopped after the test. */
async function connected(): Promise<{ harness: Harness; client: TestClient; sample: Sample }> {
  const harness = await startBridge(OPTIONS);
  const client = await harness.connect();
  return { harness, client, sample: await sampleOf(client) };
}

describe("parameter shapes of the Generator bridge service's SDK", () => {
  for (const frame of FIXTURES.frames) {
    it(`${frame.method} with ${frame.alias} answers as with the bridge's own params`, async () => {
      const first = await connected();
      // A frame that changes the document runs each shape on a bridge of its own, both starting from the sample.
      const second = frame.mutates === true ? await connected() : first;
      const own = await first.client.send(frame.method, fill(frame.own, first.sample));
      const legacy = await second.client.send(frame.method, fill(frame.legacy, second.sample));
      expect(own.ok, JSON.stringify(own.error)).toBe(true);
      expect(answerOf(legacy)).toEqual(answerOf(own));
    });
  }
});

describe("legacy shapes the bridge cannot honour", () => {
  it("a legacy name and the bridge's own name with different values are refused naming both", async () => {
    const { client, sample } = await connected();
    const cases: Array<[string, unknown, string, string]> = [
      ["layer:getInfoById", { layerID: sample.pixel.id, layerId: sample.group.id }, "layerID", "layerId"],
      ["layer:getInfoById", { layerId: sample.group.id, options: { getChildren: true }, getChildren: false }, "options.getChildren", "getChildren"],
      ["image:exportLayer", { layerSpec: sample.pixel.id, layerId: sample.group.id }, "layerSpec", "layerId"],
      ["image:exportLayer", { layerId: sample.pixel.id, settings: { scaleX: 2, scaleY: 2 }, scale: 1 }, "settings.scaleX", "scale"],
      ["document:export", { filePath: join(dir, "a.png"), path: join(dir, "b.png") }, "filePath", "path"],
      ["document:export", { path: join(dir, "a.jpg"), format: "jpeg", jpegQuality: 12, quality: 50 }, "jpegQuality", "quality"],
    ];
    for (const [method, params, alias, own] of cases) {
      const answer = await client.send(method, params);
      expect(answer.error?.code, `${method} ${alias}`).toBe("BAD_REQUEST");
      expect(answer.error?.message).toContain(alias);
      expect(answer.error?.message).toContain(own);
      expect(answer.error?.details).toMatchObject({ param: alias, conflictsWith: own });
    }
  });

  it("a legacy name and the bridge's own name with the same value are taken", async () => {
    const { client, sample } = await connected();
    const answer = await client.send("layer:getInfoById", { layerID: sample.pixel.id, layerId: sample.pixel.id });
    expect(answer.result).toMatchObject({ id: sample.pixel.id });
  });

  it("a layer range of more than one layer is NOT_SUPPORTED, with the range in details", async () => {
    const { client, sample } = await connected();
    const range = { firstLayerIndex: sample.pixel.index, lastLayerIndex: sample.pixel.index + 1, hidden: [] };
    for (const method of ["image:exportLayer", "image:getPreview"]) {
      const answer = await client.send(method, { layerSpec: range });
      expect(answer.error?.code, method).toBe("NOT_SUPPORTED");
      expect(answer.error?.message).toContain("one layer at a time");
      expect(answer.error?.details).toEqual({ param: "layerSpec", ...range });
    }
  });

  it("pixmap settings without an equivalent are NOT_SUPPORTED by name; unequal scales too", async () => {
    const { client, sample } = await connected();
    const odd = await client.send("image:exportLayer", { layerSpec: sample.pixel.id, settings: { inputRect: { left: 0, top: 0, right: 1, bottom: 1 }, allowDither: true } });
    expect(odd.error?.code).toBe("NOT_SUPPORTED");
    expect(odd.error?.details).toEqual({ param: "settings", unsupported: ["inputRect", "allowDither"] });
    const stretched = await client.send("image:exportDocument", { settings: { scaleX: 0.5, scaleY: 0.25 } });
    expect(stretched.error?.code).toBe("NOT_SUPPORTED");
    expect(stretched.error?.details).toEqual({ param: "settings", unsupported: ["scaleX", "scaleY"] });
  });

  it("legacy flags that ask for something the bridge lacks are NOT_SUPPORTED when on", async () => {
    const { client, sample } = await connected();
    const settings = await client.send("layer:getInfo", { id: sample.pixel.id, getGeneratorSettings: true });
    expect(settings.error?.code).toBe("NOT_SUPPORTED");
    expect(settings.error?.details).toEqual({ param: "getGeneratorSettings" });
    const workpath = await client.send("layer:importImage", { image: PNG, useWorkpath: true });
    expect(workpath.error?.code).toBe("NOT_SUPPORTED");
    expect(workpath.error?.details).toEqual({ param: "useWorkpath" });
  });

  it("layer:getInfo with selection points to layer:getInfoBySelectionIndex", async () => {
    const { client } = await connected();
    const answer = await client.send("layer:getInfo", { selection: 0 });
    expect(answer.error?.code).toBe("BAD_REQUEST");
    expect(answer.error?.message).toContain("layer:getInfoBySelectionIndex");
  });

  it("jpegQuality outside Photoshop's 0–12 scale is refused", async () => {
    const { client } = await connected();
    const answer = await client.send("document:export", { filePath: join(dir, "q.jpg"), format: "jpg", jpegQuality: 13 });
    expect(answer.error?.code).toBe("BAD_REQUEST");
    expect(answer.error?.details).toEqual({ param: "jpegQuality", value: 13 });
  });
});

describe("results the Generator bridge service's clients read", () => {
  it("getServerInfo carries psVersion, the same value as hostVersion", async () => {
    const { client } = await connected();
    const info = (await client.send("getServerInfo")).result as { hostVersion?: string; psVersion?: string };
    expect(info.hostVersion).toEqual(expect.any(String));
    expect(info.psVersion).toBe(info.hostVersion);
  });

  it("event:subscribe, event:unsubscribe and selection:change answer ok: true", async () => {
    const { client } = await connected();
    expect((await client.send("event:subscribe", { type: "selection:changed" })).result).toEqual({ type: "selection:changed", subscribed: true, ok: true });
    expect((await client.send("event:unsubscribe", { type: "selection:changed" })).result).toEqual({ type: "selection:changed", subscribed: false, ok: true });
    expect((await client.send("selection:change", {})).result).toEqual({ watching: true, ok: true });
  });
});

describe("legacy shapes over HTTP", () => {
  it("an HTTP body in the legacy shape answers as the bridge's own", async () => {
    const { harness, sample } = await connected();
    const post = async (body: unknown): Promise<unknown> => {
      const response = await harness.http("/image/export-layer", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      return { status: response.status, body: await response.json() };
    };
    const own = await post({ layerId: sample.pixel.id, scale: 0.5 });
    expect(own).toMatchObject({ status: 200 });
    expect(await post({ layerSpec: sample.pixel.id, settings: { scaleX: 0.5, scaleY: 0.5 } })).toEqual(own);
  });

  it("a legacy query answers as the bridge's own query", async () => {
    const { harness, sample } = await connected();
    const get = async (path: string): Promise<unknown> => {
      const response = await harness.http(path);
      return { status: response.status, body: await response.json() };
    };
    const own = await get(`/layer/info?layerId=${sample.group.id}&getChildren=true`);
    expect(own).toMatchObject({ status: 200, body: { id: sample.group.id, children: expect.any(Array) } });
    expect(await get(`/layer/info?id=${sample.group.id}&getChildren=true&getGeneratorSettings=false`)).toEqual(own);
    expect(await get(`/layer/info?index=${sample.group.index}&getChildren=true`)).toEqual(own);
  });
});
