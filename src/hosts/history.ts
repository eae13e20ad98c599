/*
 * A document's history as editors keep it (see `src/protocol/history.ts` for what clients see). The methods check
 * the document and the numbers; an editor moves its own history and reports where it stands.
 */

/** What a history call asks of an editor; every one names the document (already resolved). */
export type HistoryRequest =
  | { readonly op: "list"; readonly documentId: number }
  | { readonly op: "undo" | "redo"; readonly documentId: number; readonly steps: number }
  /** To the state after step `index` (0: before every kept step). */
  | { readonly op: "go"; readonly documentId: number; readonly index: number }
  /** An atomic batch begins: the steps until `commit` or `rollback` become one. */
  | { readonly op: "begin"; readonly documentId: number }
  /** The atomic batch succeeded: its steps become one named `name`. */
  | { readonly op: "commit"; readonly documentId: number; readonly name: string }
  /** The atomic batch failed: its steps are undone and forgotten, the document's revision is as at `begin`. */
  | { readonly op: "rollback"; readonly documentId: number };

/** One step as an editor reports it; `by` is the call's caller (`client:<id prefix>`, `http:…`, `plugin:…`). */
export interface HostHistoryStep {
  readonly name: string;
  readonly method: string;
  readonly by: string;
}

/** Where a document's history stands after a history call. */
export interface HistoryAnswer {
  readonly documentId: number;
  /** Oldest first. */
  readonly steps: readonly HostHistoryStep[];
  /** Steps applied: 0 when all are undone. */
  readonly current: number;
  /** Oldest steps dropped so far to keep within the history's bounds. */
  readonly dropped: number;
  readonly revision: number;
  /** `rollback`: how many steps were undone. */
  readonly rolledBack?: number | undefined;
}
