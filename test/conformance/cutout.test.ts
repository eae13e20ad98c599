import sharp from "sharp";
import { describe, expect } from "vitest";
import { renderScene } from "../../scripts/generate-product-shots.js";
import { METHOD_SCHEMAS, type BuiltinMethodName, type HostLayer, type HostRect } from "../../src/protocol/index.js";
import { itFor, conformanceMatrix } from "./_editors.js";
import type { ConformanceTransport, Outcome } from "./_transports.js";

function expectResult(method: BuiltinMethodName, outcome: Outcome): unknown {
  if (!outcome.ok) throw new Error(`${method} failed: ${JSON.stringify(outcome.error)}`);
  return METHOD_SCHEMAS[method].result.parse(outcome.result);
}

const MATRIX = conformanceMatrix();

describe.each(MATRIX)("cutout actions over $label", ({ editor, transport: { make } }) => {
  const it = itFor(editor);
  let t: ConformanceTransport;
  const call = (method: BuiltinMethodName, params?: Record<string, unknown>): Promise<Outcome> => t.call(method, params);

  /** A bridge whose active layer is a product shot placed at the canvas origin. */
  const setupScene = async (): Promise<{ layer: HostLayer; shot: ReturnType<typeof renderScene> }> => {
    t = await make(await editor.start());
    const shot = renderScene("apple-beige", { width: 240, height: 180, seed: 2 });
    const png = await sharp(shot.rgba, { raw: { width: shot.width, height: shot.height, channels: 4 } }).png().toBuffer();
    const layer = expectResult("layer:importImage", await call("layer:importImage", { image: png.toString("base64"), position: { x: 0, y: 0 } })) as HostLayer;
    return { layer, shot };
  };

  it("action:autoCutout selects the subject and answers true", async () => {
    const { layer, shot } = await setupScene();
    expect(expectResult("action:autoCutout", await call("action:autoCutout", { layerId: layer.id }))).toBe(true);
    const area = expectResult("selection:getArea", await call("selection:getArea")) as HostRect;
    // How well the subject is found is the editor's own algorithm; the embedded one's is checked here.
    if (editor.name === "embedded") {
      expect(area.width).toBeGreaterThan(shot.width * 0.2);
      expect(area.width).toBeLessThan(shot.width * 0.8);
    }
    expect(expectResult("selection:getPath", await call("selection:getPath"))).not.toBeNull();
  });

  it("action:removeBackground hides the background of the active layer and answers {success: true}", async () => {
    const { layer } = await setupScene();
    expect(expectResult("action:removeBackground", await call("action:removeBackground", { layerId: layer.id }))).toMatchObject({ success: true });
    const image = expectResult("image:exportLayer", await call("image:exportLayer", { layerId: layer.id })) as { data: string };
    const { data } = await sharp(Buffer.from(image.data.split(",")[1]!, "base64")).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    if (editor.name === "embedded") expect(data[3]).toBe(0); // a corner is background
  });

  it("an unknown layer is LAYER_NOT_FOUND", async () => {
    t = await make(await editor.start());
    expect((await call("action:removeBackground", { layerId: 9999 })).error?.code).toBe("LAYER_NOT_FOUND");
    expect((await call("action:autoCutout", { layerId: 9999 })).error?.code).toBe("LAYER_NOT_FOUND");
  });
});
