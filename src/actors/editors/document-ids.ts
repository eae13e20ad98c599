import { BridgeError } from "../../protocol/index.js";

/** How many document ids one bridge's range holds; a cluster gives each bridge its own range. */
export const DOCUMENT_ID_RANGE = 1_000_000_000;

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
  /** Highest id handed out so far. */
  private highest: number;

  constructor(private base = 0) {
    this.highest = base;
  }

  /**
   * Hands out ids from `base` on (a cluster gave this bridge its slot). Ids already handed out stay as they are: a
   * document seen before the bridge joined keeps its id, which only its own bridge knows.
   */
  useRange(base: number): void {
    this.base = base;
    this.highest = Math.max(this.highest, base);
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
    if (this.claimed.has(id) || id <= this.base || id >= this.base + DOCUMENT_ID_RANGE || !Number.isInteger(id)) {
      id = this.highest + 1;
      if (id >= this.base + DOCUMENT_ID_RANGE) throw new BridgeError("INTERNAL", "This bridge has handed out every document id of its range");
    }
    this.claimed.add(id);
    this.highest = Math.max(this.highest, id);
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

  /**
   * Forgets every document of an editor (it was lost; those it reopens from recovery copies are given back with
   * {@link restore}); returns each one's native and bridge id.
   */
  forgetEditor(editor: string): Array<{ native: number; id: number }> {
    const natives = this.byEditor.get(editor);
    if (natives === undefined) return [];
    const pairs = [...natives].map(([native, id]) => ({ native, id }));
    for (const { id } of pairs) this.homes.delete(id);
    natives.clear();
    return pairs;
  }

  /** Maps a bridge id to its document again: a restarted editor reopened it under the same native id. */
  restore(editor: string, native: number, id: number): void {
    let natives = this.byEditor.get(editor);
    if (natives === undefined) {
      natives = new Map();
      this.byEditor.set(editor, natives);
    }
    natives.set(native, id);
    this.homes.set(id, { editor, native });
  }

  /** Bridge ids of an editor's known documents. */
  of(editor: string): number[] {
    return [...(this.byEditor.get(editor)?.values() ?? [])];
  }

  /** How many known documents an editor has: read on every `getServerInfo`, so no array is made for it. */
  count(editor: string): number {
    return this.byEditor.get(editor)?.size ?? 0;
  }
}
