import type { HostAdapter } from "../host.js";
import type { RunOperation } from "./operations.js";
import type { Revisions } from "./revisions.js";

/** What the actions need from the adapter. */
export interface ActionDeps {
  readonly run: RunOperation;
  /** Remove Background masks a layer: the document's revision rises. */
  readonly revisions: Revisions;
}

/** Photoshop's own Select Subject and Remove Background on a pixel layer. */
export function actionOps({ run, revisions }: ActionDeps): Required<Pick<HostAdapter, "autoCutout" | "removeBackground">> {
  return {
    autoCutout: (ctx, { documentId, layerId }) => run<boolean>(ctx.signal, "action.autoCutout", { documentId, layerId }),

    removeBackground: async (ctx, { documentId, layerId }) =>
      (await revisions.change(documentId, () => run<boolean>(ctx.signal, "action.removeBackground", { documentId, layerId }))).result,
  };
}
