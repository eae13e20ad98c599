import type { HostRect } from "../../protocol/index.js";
import type { HostAdapter, SelectionOutline } from "../host.js";
import type { RunOperation } from "./operations.js";

/** What the selection operations need from the adapter. */
export interface SelectionDeps {
  readonly run: RunOperation;
}

/** Photoshop's selection: read, replaced by any shape (Photoshop clips ellipses and polygons), traced as a path. */
export function selectionOps({ run }: SelectionDeps): Required<Pick<HostAdapter, "getSelection" | "setSelection" | "getSelectionOutline">> {
  return {
    getSelection: (ctx, documentId) => run<HostRect | null>(ctx.signal, "selection.get", { documentId }),

    setSelection: (ctx, { documentId, shape }) => run<HostRect | null>(ctx.signal, "selection.set", { documentId, shape }),

    getSelectionOutline: (ctx, { documentId, expand }) => run<SelectionOutline | null>(ctx.signal, "selection.path", { documentId, expand }),
  };
}
