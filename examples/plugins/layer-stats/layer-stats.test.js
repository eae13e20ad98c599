// The plugin's own tests, with the bridge's test kit: `npm test` in this folder (vitest), nothing else to start.
import { createTestBridge } from "image-editor-bridge/testing";
import { afterEach, describe, expect, it } from "vitest";

/** This folder: the plugin under test. */
const plugin = new URL(".", import.meta.url);

describe("layer-stats", () => {
  /** @type {import("image-editor-bridge/testing").TestBridge | undefined} */
  let t;
  afterEach(() => t?.close());

  it("summarizes the layers of the sample document", async () => {
    t = await createTestBridge({ plugins: [plugin], editor: "embedded" });
    const summary = await t.client.invoke("layer-stats:summary");
    expect(summary).toMatchObject({ document: "Sample", layers: 5, visible: 5, hidden: 0 });
    expect(summary.byKind).toEqual({ pixel: 3, group: 1, background: 1 });
    expect(summary.large).toEqual(["Background"]);
  });

  it("serves the same summary on its HTTP route", async () => {
    t = await createTestBridge({ plugins: [plugin], editor: "embedded" });
    const response = await fetch(`${t.url}/plugins/layer-stats/summary`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(await t.client.invoke("layer-stats:summary"));
  });

  it("counts a layer as large from the configured ratio", async () => {
    t = await createTestBridge({ plugins: [plugin], config: { "layer-stats": { largeLayerRatio: 0 } } });
    const summary = await t.client.invoke("layer-stats:summary");
    expect(summary.large).toHaveLength(summary.layers - summary.byKind.group);
  });

  it("sends layer-stats:updated to its subscribers when the selection changes", async () => {
    t = await createTestBridge({ plugins: [plugin] });
    const updated = new Promise((resolve) => t?.client.on("layer-stats:updated", resolve));
    // Built-in methods answer on the plugin's endpoint too.
    await t.client.invoke("selection:set", { rect: { x: 0, y: 0, width: 10, height: 10 } });
    expect(await updated).toMatchObject({ document: "Sample", layers: 5 });
  });
});
