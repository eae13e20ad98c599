import type { HostAdapter } from "../host.js";
import type { RunOperation } from "./operations.js";

/** What the actions need from the adapter. */
export interface ActionDeps {
  readonly run: RunOperation;
}

/** Photoshop's own Select Subject and Remove Background on a pixel layer. */
export function actionOps({ run }: ActionDeps): Required<Pick<HostAdapter, "autoCutout" | "removeBackground">> {
  return {
    autoCutout: (ctx, { documentId, layerId }) => run<boolean>(ctx.signal, "action.autoCutout", { documentId, layerId }),

    removeBackground: (ctx, { documentId, layerId }) => run<boolean>(ctx.signal, "action.removeBackground", { documentId, layerId }),
  };
}
