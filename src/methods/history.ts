import type { HistoryAnswer, HistoryRequest } from "../hosts/history.js";
import { BridgeError } from "../protocol/index.js";
import { clientPrefixOf } from "./_internal/history.js";
import { defineMethod, type MethodContext, type MethodDefinition } from "./define.js";

/**
 * Asks the editor's history of a document (the active one when `documentId` is left out).
 * @throws BridgeError `NOT_SUPPORTED {editor, capability: "history"}` from an editor without one
 */
async function history(ctx: MethodContext, documentId: number | undefined, request: (documentId: number) => HistoryRequest): Promise<HistoryAnswer> {
  if (typeof ctx.host.history !== "function") {
    throw new BridgeError("NOT_SUPPORTED", `The ${ctx.host.kind} editor has no history the bridge can move`, {
      details: { editor: ctx.host.kind, capability: "history" },
    });
  }
  const doc = await ctx.host.getDocument(ctx.call, documentId);
  return ctx.host.history(ctx.call, request(doc.id));
}

/** Where a history stands, as undo, redo and go answer it. */
function position(answer: HistoryAnswer) {
  return { documentId: answer.documentId, current: answer.current, length: answer.steps.length, revision: answer.revision };
}

/** A document's history: what every client's edits made, undone and redone by any client. */
export const historyMethods: MethodDefinition[] = [
  defineMethod("history:list", {
    description:
      "The steps of a document's history, oldest first: each edit by any client is one, named after its method, with the client that made it. `current` is the step the document is at (0: all undone); `dropped` counts the oldest steps dropped to keep the history within its bounds.",
    examples: [{}],
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/history" },
    run: async (ctx, params) => {
      const answer = await history(ctx, params.documentId, (documentId) => ({ op: "list", documentId }));
      return {
        ...position(answer),
        dropped: answer.dropped,
        steps: answer.steps.map((step, i) => ({ index: i + 1, name: step.name, method: step.method, clientIdPrefix: clientPrefixOf(step.by) })),
      };
    },
  }),
  defineMethod("history:undo", {
    description:
      "Undoes the last `steps` (default 1) steps of a document's history, whoever made them; `BAD_REQUEST` when fewer can be undone. Raises the document's revision and sends `history:changed`. Answers the new `current`.",
    examples: [{}, { steps: 3 }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/history/undo" },
    run: async (ctx, params) => position(await history(ctx, params.documentId, (documentId) => ({ op: "undo", documentId, steps: params.steps ?? 1 }))),
  }),
  defineMethod("history:redo", {
    description:
      "Redoes `steps` (default 1) undone steps of a document's history; `BAD_REQUEST` when fewer can be redone (an edit after an undo ends what can be redone). Raises the document's revision and sends `history:changed`. Answers the new `current`.",
    examples: [{}, { steps: 2 }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/history/redo" },
    run: async (ctx, params) => position(await history(ctx, params.documentId, (documentId) => ({ op: "redo", documentId, steps: params.steps ?? 1 }))),
  }),
  defineMethod("history:go", {
    description:
      "Takes a document to the state after step `index` of its history (`history:list` numbers them; 0: before every step kept), undoing or redoing as many steps as that takes. Raises the document's revision and sends `history:changed`.",
    examples: [{ index: 0 }, { index: 4 }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/history/go" },
    run: async (ctx, params) => position(await history(ctx, params.documentId, (documentId) => ({ op: "go", documentId, index: params.index }))),
  }),
];
