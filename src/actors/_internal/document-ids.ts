/**
 * First id handed out when an editor's own id is already taken by another editor's document. The ids below it
 * are left to the editors, so a bridge with one editor keeps that editor's ids unchanged.
 */
export const DOCUMENT_ID_FALLBACK_BASE = 1_000_000_000;

/** Where one document lives: the editor and that editor's own id for it. */
export interface DocumentHome {
  readonly editor: string;
  readonly native: number;
}

/**
 * The bridge's document ids across a pool of editors. Each editor numbers its documents on its own (two GIMPs both
 * start at 1), so the bridge hands out its own ids and maps them to `(editor, native id)`. An editor's id is kept
 * when no other document ever had it, which makes a one-editor bridge show exactly the editor's ids; otherwise the
 * next free id from {@link DOCUMENT_ID_FALLBACK_BASE}. An id is never handed out twice, even after its document
 * closed or its editor restarted, so a stale id can only miss, never hit another document.
 *
 * The ids above the fallback base form this bridge's range; a cluster of bridges gives each its own base.
 */
export class DocumentIds {
  private readonly homes = new Map<number, DocumentHome>();
  /** Per editor: native id → bridge id. */
  private readonly byEditor = new Map<string, Map<number, number>>();
  /** Every id ever handed out. */
  private readonly claimed = new Set<number>();
  private nextFallback: number;

  constructor(fallbackBase = DOCUMENT_ID_FALLBACK_BASE) {
    this.nextFallback = fallbackBase;
  }

  /** The bridge id of an editor's document, handing one out the first time the document is seen. */
  toBridge(editor: string, native: number): number {
    let natives = this.byEditor.get(editor);
    if (natives === undefined) {
      natives = new Map();
      this.byEditor.set(editor, natives);
    }
    const known = natives.get(native);
    if (known !== undefined) return known;
    let id = native;
    if (this.claimed.has(id) || id >= DOCUMENT_ID_FALLBACK_BASE || id < 1) {
      while (this.claimed.has(this.nextFallback)) this.nextFallback++;
      id = this.nextFallback++;
    }
    this.claimed.add(id);
    natives.set(native, id);
    this.homes.set(id, { editor, native });
    return id;
  }

  /** Where a bridge id lives, or undefined for an id no open document has. */
  home(id: number): DocumentHome | undefined {
    return this.homes.get(id);
  }

  /** The editor's own id for a bridge id it owns; `undefined` when the id is not one of this editor's. */
  toNative(editor: string, id: number): number | undefined {
    const home = this.homes.get(id);
    return home?.editor === editor ? home.native : undefined;
  }

  /** Whether an id was handed out and no longer maps to a document (closed, or lost with its editor). */
  claimedElsewhere(id: number): boolean {
    return this.claimed.has(id) && !this.homes.has(id);
  }

  /** Forgets one document (closed): its id stays claimed. */
  forget(editor: string, native: number): number | undefined {
    const id = this.byEditor.get(editor)?.get(native);
    if (id === undefined) return undefined;
    this.byEditor.get(editor)!.delete(native);
    this.homes.delete(id);
    return id;
  }

  /** Forgets every document of an editor (it restarted, its documents are gone); returns their bridge ids. */
  forgetEditor(editor: string): number[] {
    const natives = this.byEditor.get(editor);
    if (natives === undefined) return [];
    const ids = [...natives.values()];
    for (const id of ids) this.homes.delete(id);
    natives.clear();
    return ids;
  }

  /** Bridge ids of an editor's known documents. */
  of(editor: string): number[] {
    return [...(this.byEditor.get(editor)?.values() ?? [])];
  }
}
