import sharp from "sharp";
import { describe, expect } from "vitest";
import { METHOD_SCHEMAS, type BuiltinMethodName, type HostLayer, type HostRect, type SelectionPath } from "../../src/protocol/index.js";
import { itFor, conformanceMatrix } from "./_editors.js";
import type { ConformanceTransport, Outcome } from "./_transports.js";

function expectResult(method: BuiltinMethodName, outcome: Outcome): unknown {
  if (!outcome.ok) throw new Error(`${method} failed: ${JSON.stringify(outcome.error)}`);
  return METHOD_SCHEMAS[method].result.parse(outcome.result);
}

const MATRIX = conformanceMatrix();

describe.each(MATRIX)("selection shapes and paths over $label", ({ editor, transport: { make } }) => {
  const it = itFor(editor);
  let t: ConformanceTransport;
  const call = (method: BuiltinMethodName, params?: Record<string, unknown>): Promise<Outcome> => t.call(method, params);
  const setup = async (): Promise<void> => {
    t = await make(await editor.start());
  };

  it("selection:getPath is null without a selection and outlines a rectangle exactly", async () => {
    await setup();
    expect(expectResult("selection:getPath", await call("selection:getPath"))).toBeNull();
    expectResult("selection:set", await call("selection:set", { rect: { x: 10, y: 20, width: 30, height: 40 } }));
    const path = expectResult("selection:getPath", await call("selection:getPath")) as SelectionPath;
    expect(path).toMatchObject({ x: 10, y: 20, width: 30, height: 40 });
    // A standalone SVG document on every editor, with the outline as path data.
    expect(path.svg).toMatch(/<svg[\s>][\s\S]*<path [^>]*d="[^"]*M[\s\S]*<\/svg>\s*$/);
    const grown = expectResult("selection:getPath", await call("selection:getPath", { expand: 4 })) as SelectionPath;
    expect(grown).toMatchObject({ x: 6, y: 16, width: 38, height: 48 });
  });

  it("selection:set takes an ellipse or a polygon; its area is the mask's bbox", async () => {
    await setup();
    const ellipse = expectResult("selection:set", await call("selection:set", { ellipse: { x: 100, y: 100, width: 60, height: 40 } })) as HostRect;
    expect(ellipse).toEqual({ x: 100, y: 100, width: 60, height: 40 });
    const points = [
      { x: 50, y: 50 },
      { x: 150, y: 50 },
      { x: 100, y: 130 },
    ];
    const polygon = expectResult("selection:set", await call("selection:set", { polygon: points })) as HostRect;
    expect(expectResult("selection:getArea", await call("selection:getArea"))).toEqual(polygon);
    const path = expectResult("selection:getPath", await call("selection:getPath")) as SelectionPath;
    expect(path.svg).toMatch(/fill-rule="evenodd"/);
    expect(path.width).toBeLessThanOrEqual(polygon.width);
    const both = await call("selection:set", { rect: null, ellipse: { x: 0, y: 0, width: 1, height: 1 } });
    expect(both.error?.code).toBe("BAD_REQUEST");
  });

  it("image:exportLayerWithSelectedPath draws the outline over the layer", async () => {
    await setup();
    const layer = expectResult("layer:getInfo", await call("layer:getInfo")) as HostLayer;
    const { x, y, width, height } = layer.rect;
    expectResult("selection:set", await call("selection:set", { rect: { x: x + 2, y: y + 2, width: Math.max(4, width - 4), height: Math.max(4, height - 4) } }));
    const plain = expectResult("image:exportLayer", await call("image:exportLayer", { layerId: layer.id })) as { data: string };
    const outlined = expectResult(
      "image:exportLayerWithSelectedPath",
      await call("image:exportLayerWithSelectedPath", { layerId: layer.id, strokeColor: "#ff00ff", strokeWidth: 3 }),
    ) as { data: string; bounds: unknown };
    expect(outlined.bounds).toEqual(layer.bounds);
    const decode = (uri: string): Promise<Buffer> => sharp(Buffer.from(uri.split(",")[1]!, "base64")).ensureAlpha().raw().toBuffer();
    const [a, b] = await Promise.all([decode(plain.data), decode(outlined.data)]);
    let magenta = 0;
    for (let i = 0; i < b.length; i += 4) if (b[i]! > 200 && b[i + 1]! < 60 && b[i + 2]! > 200 && (a[i] !== b[i] || a[i + 1] !== b[i + 1])) magenta++;
    // The fake Photoshop of the test suite does not draw; the real stroke is checked on the embedded editor.
    if (editor.name === "embedded") expect(magenta).toBeGreaterThan(0);
  });
});
