import { describe, expect, it } from "vitest";
import type { DocumentTree } from "../../src/hosts/host.js";
import { findLayer, layerRefOfSpec, requireLayer, shownLayer } from "../../src/methods/_internal/targets.js";
import type { HostLayer } from "../../src/protocol/index.js";

function layer(id: number, index: number, children?: HostLayer[]): HostLayer {
  const base: HostLayer = {
    id,
    index,
    name: `L${id}`,
    kind: children ? "group" : "pixel",
    visible: true,
    opacity: 100,
    blendMode: "normal",
    bounds: { left: 0, top: 0, right: 1, bottom: 1 },
    rect: { x: 0, y: 0, width: 1, height: 1 },
    clipped: false,
  };
  return children ? { ...base, children } : base;
}

/** Top to bottom: 10, group 20 (21, 22), 30. `index` counts from the bottom, as Photoshop's does. */
const bottomUp: DocumentTree = {
  document: { id: 1, name: "d", width: 10, height: 10, resolution: 72, colorMode: "RGB", isDirty: false, revision: 0, activeLayerIds: [30, 21] },
  layers: [layer(10, 4), layer(20, 3, [layer(21, 2), layer(22, 1)]), layer(30, 0)],
};

describe("layer references, resolved once for every editor", () => {
  it("ids and indices name layers in the editor's own index space, wherever they sit in the tree", () => {
    expect(requireLayer(bottomUp, { by: "id", id: 22 }).id).toBe(22);
    expect(requireLayer(bottomUp, { by: "index", index: 0 }).id).toBe(30);
    expect(requireLayer(bottomUp, { by: "index", index: 2 }).id).toBe(21);
  });

  it("the active and selection-index references walk the active layers top-most first", () => {
    expect(findLayer(bottomUp, { by: "active" })?.id).toBe(21);
    expect(requireLayer(bottomUp, { by: "selectionIndex", index: 0 }).id).toBe(21);
    expect(requireLayer(bottomUp, { by: "selectionIndex", index: 1 }).id).toBe(30);
  });

  it("a reference to nothing is LAYER_NOT_FOUND with what was asked; nothing active is null or LAYER_NOT_FOUND", () => {
    expect(() => requireLayer(bottomUp, { by: "id", id: 99 })).toThrow(expect.objectContaining({ code: "LAYER_NOT_FOUND", details: { layerId: 99, documentId: 1 } }));
    expect(() => requireLayer(bottomUp, { by: "index", index: 9 })).toThrow(expect.objectContaining({ details: { layerIndex: 9, documentId: 1 } }));
    expect(() => requireLayer(bottomUp, { by: "selectionIndex", index: 2 })).toThrow(expect.objectContaining({ code: "LAYER_NOT_FOUND" }));
    const none = { ...bottomUp, document: { ...bottomUp.document, activeLayerIds: [] } };
    expect(findLayer(none, { by: "active" })).toBeNull();
    expect(() => requireLayer(none, { by: "active" })).toThrow(expect.objectContaining({ code: "LAYER_NOT_FOUND" }));
  });

  it("preview specs read as references; children show only for groups and only when asked", () => {
    expect([layerRefOfSpec(7), layerRefOfSpec("current"), layerRefOfSpec("id:3"), layerRefOfSpec("index:2")]).toEqual([
      { by: "id", id: 7 },
      { by: "active" },
      { by: "id", id: 3 },
      { by: "index", index: 2 },
    ]);
    const group = requireLayer(bottomUp, { by: "id", id: 20 });
    expect(shownLayer(group, false).children).toBeUndefined();
    expect(shownLayer(group, true).children?.map((l) => l.id)).toEqual([21, 22]);
  });
});
