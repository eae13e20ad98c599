import { describe, expect, it } from "vitest";
import { untitledName } from "../../src/methods/document.js";
import { exportSize, layerExportSize, previewPayload } from "../../src/methods/_internal/images.js";
import { fieldKinds } from "../../src/methods/_internal/fields.js";
import { clipToCanvas, toSelectionPath } from "../../src/methods/selection.js";
import { METHOD_SCHEMAS } from "../../src/protocol/index.js";

describe("decisions the methods make for every editor", () => {
  it("export sizes: scale, then maxSize on the longest edge, never enlarging; capped in pixels and by WebP's edge", () => {
    expect(exportSize(2000, 1000, { format: "png" }, 1e8)).toEqual({ width: 2000, height: 1000 });
    expect(exportSize(2000, 1000, { format: "png", scale: 0.5 }, 1e8)).toEqual({ width: 1000, height: 500 });
    expect(exportSize(2000, 1000, { format: "png", maxSize: 300 }, 1e8)).toEqual({ width: 300, height: 150 });
    expect(exportSize(200, 100, { format: "png", maxSize: 300 }, 1e8)).toEqual({ width: 200, height: 100 });
    expect(() => exportSize(2000, 1000, { format: "png", scale: 16 }, 1e8)).toThrow(expect.objectContaining({ code: "PAYLOAD_TOO_LARGE" }));
    expect(() => exportSize(20000, 10, { format: "webp" }, 1e9)).toThrow(expect.objectContaining({ code: "BAD_REQUEST" }));
    expect(layerExportSize({ x: 0, y: 0, width: 0, height: 0 }, { format: "png" }, 1e8)).toEqual({ width: 1, height: 1 });
  });

  it("a new document's name is the first Untitled-N no open document has", () => {
    expect(untitledName([])).toBe("Untitled-1");
    expect(untitledName(["Untitled-1", "Untitled-3", "Sample"])).toBe("Untitled-2");
  });

  it("selection rectangles are clipped to the canvas on whole pixels; outlines become standalone SVG documents", () => {
    expect(clipToCanvas({ x: -5, y: 2.5, width: 20, height: 3 }, 10, 10)).toEqual({ x: 0, y: 2, width: 10, height: 4 });
    expect(clipToCanvas({ x: 20, y: 0, width: 5, height: 5 }, 10, 10)).toBeNull();
    const path = toSelectionPath("M1 1L4 1L4 3Z", { x: 1, y: 1, width: 3, height: 2 });
    expect(path).toMatchObject({ x: 1, y: 1, width: 3, height: 2 });
    expect(path.svg).toContain('viewBox="1 1 3 2"');
  });

  it("a preview event becomes the wire payload with a PNG data URI; no layer is null", () => {
    const image = { bytes: new Uint8Array([1, 2, 3]), format: "png" as const, width: 3, height: 1, bounds: { left: 0, top: 0, right: 3, bottom: 1 } };
    expect(previewPayload({ documentId: 2, layer: { id: 5, name: "L", index: 0 }, image })).toEqual({
      documentId: 2,
      id: 5,
      name: "L",
      index: 0,
      width: 3,
      height: 1,
      data: "data:image/png;base64,AQID",
    });
    expect(previewPayload(null)).toBeNull();
  });

  it("the params a method takes over HTTP, and which accept numbers or booleans, come from its published schema", () => {
    const preview = fieldKinds(METHOD_SCHEMAS["image:getPreview"].params);
    expect([...preview.keys()]).toEqual(["documentId", "layerSpec", "maxSize"]);
    expect([...preview.get("layerSpec")!]).toEqual(["number"]);
    expect([...fieldKinds(METHOD_SCHEMAS["layer:getInfo"].params).get("getChildren")!]).toEqual(["boolean"]);
  });
});
