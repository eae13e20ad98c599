import { startBridge } from "../../helpers/bridge.js";
import type { ConformanceEditor } from "../_editors.js";

export const embedded: ConformanceEditor = {
  name: "embedded",
  skip: undefined,
  start: (options) => startBridge(options),
  sampleName: "Sample",
  lacks: {},
};
