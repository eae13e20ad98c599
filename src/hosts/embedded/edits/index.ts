/**
 * The embedded editor's edits (see `../../edits.ts` for the vocabulary): one handler per edit, each in the file of
 * what it works on (`layers.ts`, `contents.ts`, `comps.ts`, `masks.ts`, `transform.ts`, `document.ts`, `selection.ts`, `filters.ts`). The editor's
 * capabilities are exactly the handlers there are. Each handler changes the document in place and reports it with
 * `changed(doc, changes)`; the dispatcher then raises the revision and emits `documentChanged` naming the method.
 */
import { BridgeError } from "../../../protocol/errors.js";
import type { EditCapabilities, EditName } from "../../edits.js";
import type { HostAdapter } from "../../host.js";
import type { EmbeddedDocument } from "../document.js";
import type { DocumentChanges } from "../events.js";
import type { EmbeddedHistory } from "../history.js";
import { compEdits } from "./comps.js";
import { contentEdits } from "./contents.js";
import type { EditContext, EditHandlers } from "./context.js";
import { documentEdits } from "./document.js";
import { effectEdits } from "./effects.js";
import { filterEdits } from "./filters.js";
import { layerEdits } from "./layers.js";
import { maskEdits } from "./masks.js";
import { selectionEdits } from "./selection.js";
import { transformEdits } from "./transform.js";

const HANDLERS: EditHandlers = { ...layerEdits, ...contentEdits, ...maskEdits, ...transformEdits, ...documentEdits, ...selectionEdits, ...filterEdits, ...effectEdits, ...compEdits };

/** Every edit the embedded editor makes; it honours every field of each. */
export const EMBEDDED_EDIT_CAPABILITIES: EditCapabilities = Object.fromEntries(Object.keys(HANDLERS).map((name) => [name, {}]));

/** Edits that read their document and make another: no step of its history, its revision as it was, no `documentChanged`. */
const LEAVES_ITS_DOCUMENT = new Set<string>(["document:duplicate"]);

/** The embedded editor's `edit` operation. */
export function editOps(
  deps: Omit<EditContext, "changed" | "call"> & { changed(doc: EmbeddedDocument, changes: DocumentChanges, method: string): void; history?: EmbeddedHistory | undefined },
): Required<Pick<HostAdapter, "edit">> {
  return {
    async edit(call, { documentId, edit }) {
      const handler = HANDLERS[edit.op] as ((context: EditContext & { doc: EmbeddedDocument }, edit: unknown) => ReturnType<NonNullable<EditHandlers[EditName]>>) | undefined;
      if (handler === undefined) {
        throw new BridgeError("NOT_SUPPORTED", `The embedded editor cannot do ${edit.op}`, { details: { editor: "embedded", capability: edit.op } });
      }
      const doc = deps.document(documentId);
      if (LEAVES_ITS_DOCUMENT.has(edit.op)) {
        const made = (await handler({ ...deps, call, doc, changed: () => undefined }, edit)) ?? {};
        return { revision: doc.revision, ...made };
      }
      // One step of the document's history, named after the method.
      const once = async () => {
        let changes: DocumentChanges = {};
        const changed = (_doc: unknown, more: DocumentChanges): void => {
          changes = mergeChanges(changes, more);
        };
        const context = { ...deps, call, doc, changed };
        const made = (await handler(context, edit)) ?? {};
        // One step: the revision rises once and one `documentChanged` names the method, whatever the handler touched.
        deps.changed(doc, changes, edit.op);
        return { revision: doc.revision, ...made };
      };
      return deps.history === undefined ? once() : deps.history.record(doc, { method: edit.op, by: call.caller }, once);
    },
  };
}

function mergeChanges(a: DocumentChanges, b: DocumentChanges): DocumentChanges {
  return {
    pixels: a.pixels === true || b.pixels === true,
    selection: a.selection === true || b.selection === true,
    activeLayers: a.activeLayers === true || b.activeLayers === true,
    layers: a.layers === true || b.layers === true,
  };
}
