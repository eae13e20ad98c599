import type { BridgeOptions } from "../../../src/bridge/options.js";
import { createGimpHost, SAMPLE_NAME } from "../../../src/hosts/gimp/index.js";
import { startBridge } from "../../helpers/bridge.js";
import { pinnedTo } from "./embedded.js";
import { GIMP_BINARY, GIMP_SKIP, sharedGimpAttach } from "../../hosts/gimp/_support.js";
import type { ConformanceEditor } from "../_editors.js";

/** The bridge limits a GIMP host applies itself, as the CLI hands them over. */
const gimpLimits = (options: BridgeOptions): { maxDocumentPixels?: number } =>
  options.limits?.maxDocumentPixels === undefined ? {} : { maxDocumentPixels: options.limits.maxDocumentPixels };

/**
 * A real GIMP 2.10. One supervised GIMP is shared by the test file (started on first use); every `start()` gives
 * a bridge attached to it whose connect closes all images and rebuilds the sample document.
 */
export const gimp: ConformanceEditor = {
  name: "gimp",
  label: "gimp",
  editors: 1,
  skip: GIMP_SKIP,
  start: async (options = {}) =>
    startBridge({ ...options, host: createGimpHost({ ...gimpLimits(options), binary: GIMP_BINARY, attach: await sharedGimpAttach(), sample: true }) }),
  paints: true,
  sampleName: SAMPLE_NAME,
  lacks: {
    "layer:getInfoBySelectionIndex walks the active layers in index order": "GIMP 2.10 has exactly one active layer",
    // The edits GIMP makes its own way; each is checked on GIMP in test/hosts/gimp/edits.test.ts.
    "layer:rasterize draws a fill layer into pixels, and a save keeps the edits": "GIMP opens a PSD's fill layer as pixels: there is no fill layer to rasterize",
  },
};

/**
 * Two real GIMPs behind one bridge: the sample lives on the first, the second starts empty. Clients connect to
 * the sample's editor as collaborating clients would (`?editor=gimp-1`); HTTP calls follow the routing rules.
 */
export const gimpPool: ConformanceEditor = {
  ...gimp,
  label: "gimp ×2",
  editors: 2,
  start: async (options = {}) => {
    const [first, second] = await Promise.all([sharedGimpAttach(0), sharedGimpAttach(1)]);
    const harness = await startBridge({
      ...options,
      hosts: [
        createGimpHost({ ...gimpLimits(options), binary: GIMP_BINARY, attach: first, sample: true }),
        createGimpHost({ ...gimpLimits(options), binary: GIMP_BINARY, attach: second, sample: "empty" }),
      ],
    });
    return pinnedTo("gimp-1", harness);
  },
};
