import { Subject } from "rxjs";
import { BridgeError, type HistoryChangedEventData } from "../../protocol/index.js";
import type { HostAdapter } from "../host.js";
import type { RunOperation } from "./operations.js";
import type { Revisions } from "./revisions.js";

/** What the history needs from the adapter. */
export interface HistoryDeps {
  readonly run: RunOperation;
  readonly revisions: Revisions;
}

/** The method a step's name stands for: the bridge names its states after the method; a person's are Photoshop's own. */
const METHOD_NAME = /^[a-z]+:[A-Za-z]+$/;

/**
 * Photoshop's own history as the document's (`jsx/history.jsx`): every edit of the bridge is one state named after
 * its method (`suspendHistory`), and undo, redo and go set the document's `activeHistoryState`. Photoshop's "History
 * States" preference bounds it, and a person's actions at Photoshop are steps too. Photoshop's states do not say who
 * made them, so steps have no client. Atomic batches need a history whose steps can be merged, which Photoshop's
 * states cannot: `NOT_SUPPORTED`.
 */
export function historyOps({ run, revisions }: HistoryDeps): Required<Pick<HostAdapter, "history">> & { readonly changes$: Subject<HistoryChangedEventData> } {
  const changes$ = new Subject<HistoryChangedEventData>();
  return {
    changes$,
    async history(ctx, request) {
      const { documentId } = request;
      if (request.op === "begin" || request.op === "commit" || request.op === "rollback") {
        throw new BridgeError("NOT_SUPPORTED", "Photoshop cannot make several history states one: atomic batches need the embedded editor", {
          details: { editor: "photoshop", capability: "history", field: "atomic" },
        });
      }
      const params = { documentId, op: request.op, ...(request.op === "go" ? { index: request.index } : request.op === "list" ? {} : { steps: request.steps }) };
      const read = () => run<{ names: string[]; current: number }>(ctx.signal, "history", params);
      let answer: { names: string[]; current: number };
      let revision: number;
      if (request.op === "list") {
        answer = await read();
        revision = revisions.of(documentId);
      } else {
        ({ result: answer, revision } = await revisions.change(documentId, read));
        revisions.edited$.next({ documentId, revision, method: `history:${request.op}` });
        changes$.next({ documentId, current: answer.current, length: answer.names.length });
      }
      return {
        documentId,
        steps: answer.names.map((name) => ({ name, method: METHOD_NAME.test(name) ? name : "photoshop", by: "editor" })),
        current: answer.current,
        dropped: 0,
        revision,
      };
    },
  };
}
