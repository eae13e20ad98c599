import { startBridge, type Harness } from "../../helpers/bridge.js";
import { startOnSharedEditor } from "../../helpers/shared-editor.js";
import type { ConformanceEditor } from "../_editors.js";

export const embedded: ConformanceEditor = {
  name: "embedded",
  label: "embedded",
  editors: 1,
  skip: undefined,
  // One editor process per test file, reset between cases (`shared-editor.ts`): the process boundary is crossed in
  // every case without paying a process start in each.
  start: (options) => startOnSharedEditor(options),
  paints: true,
  sampleName: "Sample",
  lacks: {},
};

/**
 * Three embedded editors behind one bridge (`--editors 3`): the sample document lives on the first, and every case
 * must behave exactly as on one editor. HTTP calls find the sample's editor by the routing rules; WebSocket
 * clients ask for it with `?editor=` as collaborating clients would (a second client would otherwise be given
 * the least loaded editor, where the state events of the sample's editor do not reach it).
 *
 * What this row checks is the pool's routing, so its editors run inline (`isolation: "inline"`): three editor
 * processes per case cost seconds of start-up each on two cores, and the process boundary is already checked,
 * case for case, by the one-editor row.
 */
export const embeddedPool: ConformanceEditor = {
  ...embedded,
  label: "embedded ×3",
  editors: 3,
  start: async (options = {}) =>
    pinnedTo("embedded-1", await startBridge({ editors: 3, ...options, embedded: { isolation: "inline", ...options.embedded } })),
};

/** The harness with its WebSocket clients connecting to one editor unless a test names another. */
export function pinnedTo(editor: string, harness: Harness): Harness {
  const connect = harness.connect;
  return {
    ...harness,
    connect: (pathAndQuery = "/ws", clientOptions) =>
      connect(/[?&]editor=/.test(pathAndQuery) ? pathAndQuery : `${pathAndQuery}${pathAndQuery.includes("?") ? "&" : "?"}editor=${editor}`, clientOptions),
  };
}
