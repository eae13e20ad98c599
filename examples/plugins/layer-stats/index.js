// Layer statistics for the current document: counts by kind and visibility, and which layers are "large"
// (cover more than `largeLayerRatio` of the canvas). Serves them as a WS method and an HTTP route, and sends
// `layer-stats:updated` to this plugin's subscribers whenever it computes them or the selection changes.
//
// Plugins installed next to the bridge can `import { definePlugin } from "image-editor-bridge/plugin"`; this
// example only needs the shape, typed through JSDoc, so it runs straight from the repository.

/** @param {Array<{kind: string, visible: boolean, rect: {width: number, height: number}, children?: unknown[]}>} layers */
function flatten(layers) {
  return layers.flatMap((layer) => [layer, ...flatten(/** @type {any} */ (layer.children ?? []))]);
}

/** @type {import("image-editor-bridge/plugin").PluginDefinition} */
const plugin = {
  id: "layer-stats",
  events: ["layer-stats:updated"],
  setup(ctx) {
    const largeLayerRatio = Number(ctx.config.largeLayerRatio ?? 0.5);

    async function summarize() {
      const doc = await ctx.bridge.invoke("document:current", {});
      const layers = flatten(await ctx.bridge.invoke("document:layers", { documentId: doc.id }));
      const canvas = doc.width * doc.height;
      const byKind = {};
      for (const layer of layers) byKind[layer.kind] = (byKind[layer.kind] ?? 0) + 1;
      const summary = {
        documentId: doc.id,
        document: doc.name,
        layers: layers.length,
        visible: layers.filter((l) => l.visible).length,
        hidden: layers.filter((l) => !l.visible).length,
        byKind,
        large: layers
          .filter((l) => l.kind !== "group" && l.rect.width * l.rect.height > canvas * largeLayerRatio)
          .map((l) => l.name),
      };
      ctx.events.emit("layer-stats:updated", summary);
      return summary;
    }

    ctx.method("layer-stats:summary", () => summarize());
    ctx.route("GET", "/summary", () => summarize());
    // Selections often precede edits: refresh the numbers for anyone watching.
    ctx.bridge.on("selection:changed", () => {
      summarize().catch((error) => ctx.logger.warn({ err: String(error) }, "could not refresh layer stats"));
    });

    return {
      onConnect: ({ clientId }) => ctx.logger.info({ clientId }, "layer-stats client connected"),
      onDispose: () => ctx.logger.info("layer-stats stopped"),
    };
  },
};

export default plugin;
