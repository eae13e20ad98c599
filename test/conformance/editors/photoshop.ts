import type { ConformanceEditor } from "../_editors.js";

// Placeholder until the photoshop host lands: the suite reports it skipped.
export const photoshop: ConformanceEditor = {
  name: "photoshop",
  skip: "the photoshop host is not built yet",
  start: () => Promise.reject(new Error("the photoshop host is not built yet")),
  sampleName: "",
  lacks: {},
};
