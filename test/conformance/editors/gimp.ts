import type { ConformanceEditor } from "../_editors.js";

// Placeholder until the gimp host lands: the suite reports it skipped.
export const gimp: ConformanceEditor = {
  name: "gimp",
  skip: "the gimp host is not built yet",
  start: () => Promise.reject(new Error("the gimp host is not built yet")),
  sampleName: "",
  lacks: {},
};
