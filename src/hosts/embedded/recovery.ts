import { open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../../logger.js";
import type { EmbeddedDocument } from "./document.js";
import { readDocumentFile } from "./files.js";
import { readSnapshot, snapshotDocument, type DocumentSnapshot } from "./snapshot.js";
import type { DocumentStore } from "./store.js";

/** Where and how often an editor keeps recovery copies of its open documents. */
export interface RecoveryOptions {
  /** A private folder (mode 0700) that outlives the editor's process: its owner made it and removes it. */
  readonly dir: string;
  /** A document is copied once it has not changed for this long (a burst of edits costs one copy). */
  readonly settleMs: number;
  /** Least time between two copies of one document: how much of its work, at most, a crash can take. */
  readonly intervalMs: number;
  /** Bytes the copies may take on disk together; a document whose copy would pass it is left without one. */
  readonly maxBytes: number;
  /** Bytes written per turn of the event loop when a copy goes to disk. */
  readonly writeSliceBytes: number;
}

/** One document as the index of copies records it. */
interface IndexEntry {
  readonly id: number;
  readonly name: string;
  readonly filePath: string | undefined;
  readonly isDirty: boolean;
  readonly activeLayerIds: number[];
  readonly nextLayerId: number;
  /** The copy's file name in the folder, or `null` when the document is its unchanged file (`filePath`). */
  readonly copy: string | null;
  readonly revision: number;
}

/** What a copy records of its document besides the model: what the document was when the copy was taken. */
interface CopiedState {
  readonly name: string;
  readonly filePath: string | undefined;
  readonly isDirty: boolean;
  readonly activeLayerIds: number[];
}

/** One document's copy on disk: the revision it holds, its file and size, when it was made and what it recorded. */
interface Copy {
  readonly revision: number;
  readonly file: string | null;
  readonly bytes: number;
  readonly at: number;
  /** Undefined for a copy adopted at a restore, which holds the document as it is now. */
  readonly state?: CopiedState;
}

const copiedState = (doc: EmbeddedDocument): CopiedState => ({
  name: doc.name,
  filePath: doc.filePath,
  isDirty: doc.isDirty,
  activeLayerIds: [...doc.activeLayerIds],
});

/** The index file: documents in activation order, the active one last. */
const INDEX_FILE = "documents.json";

/** What a restarted editor brought back of one document. */
export interface RecoveredDocument {
  readonly documentId: number;
  readonly recovered: boolean;
  /** Why not, when it was not. */
  readonly reason?: string | undefined;
}

/** What the editor reports of its copies: per open document, whether the last copy has its latest change. */
export interface RecoveryState {
  readonly documents: ReadonlyArray<{ readonly id: number; readonly current: boolean; readonly selection: boolean }>;
}

/**
 * Recovery copies of an embedded editor's open documents, so that a restarted editor finds them back under their
 * ids. A document that changed is copied once its changes settle (`settleMs`), at most once every `intervalMs`
 * (its first copy as soon as it settles), one document per turn, whether or not calls run. A copy is the document's snapshot
 * (`snapshot.ts`): taking it holds the editor only for the small structured part of the model; its buffers are then
 * written `writeSliceBytes` at a time off the editor's thread, and the copy is kept only if the document did not
 * change meanwhile. An unchanged document opened from a file is listed by its path. A copy that would pass
 * `maxBytes` is skipped and the document counts as not current.
 */
export class RecoveryCopies {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = false;
  /** Per document: the revision seen last, and when it was first seen. */
  private readonly seen = new Map<number, { revision: number; since: number }>();
  /** Per document: its copy on disk. */
  private readonly copies = new Map<number, Copy>();
  /** Per document: a revision whose copy failed or did not fit, not tried again (a later change is). */
  private readonly skipped = new Map<number, number>();
  private lastIndex = "";
  private lastState = "";

  constructor(
    private readonly options: RecoveryOptions,
    private readonly store: DocumentStore,
    private readonly report: (state: RecoveryState) => void,
    private readonly logger: Logger | undefined,
  ) {}

  /** Starts the rounds. */
  start(): void {
    this.timer = setInterval(() => void this.round(), Math.max(10, Math.min(this.options.settleMs, this.options.intervalMs)));
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** A document restored from `file` (`null`: its own file) at `revision`: its copy is current. */
  adopt(id: number, revision: number, file: string | null, bytes: number): void {
    this.copies.set(id, { revision, file, bytes, at: performance.now() });
  }

  /** Tells the bridge whether each document's copy is current; only when that changed. */
  reportState(): void {
    const state: RecoveryState = {
      documents: this.store.list().map((doc) => ({
        id: doc.id,
        current: this.copies.get(doc.id)?.revision === doc.revision,
        selection: doc.selection !== null,
      })),
    };
    const text = JSON.stringify(state);
    if (text === this.lastState) return;
    this.lastState = text;
    this.report(state);
  }

  /** One round: copies what settled, rewrites the index, drops the copies of closed documents. */
  private async round(): Promise<void> {
    if (this.running || this.stopped) return;
    const now = performance.now();
    this.running = true;
    try {
      const docs = this.store.list();
      for (const doc of docs) {
        const seen = this.seen.get(doc.id);
        if (seen === undefined || seen.revision !== doc.revision) this.seen.set(doc.id, { revision: doc.revision, since: now });
      }
      for (const doc of docs) {
        if (this.stopped) return;
        const copy = this.copies.get(doc.id);
        if ((copy !== undefined && copy.revision === doc.revision) || this.skipped.get(doc.id) === doc.revision) continue;
        if (now - this.seen.get(doc.id)!.since < this.options.settleMs) continue;
        if (copy !== undefined && now - copy.at < this.options.intervalMs) continue;
        // One document per turn: calls that came in meanwhile go first.
        await new Promise((resolve) => setImmediate(resolve));
        if (this.store.list().every((open) => open !== doc)) continue;
        await this.copy(doc);
      }
      const open = new Set(this.store.list().map((doc) => doc.id));
      await this.writeIndex();
      for (const [id, copy] of this.copies) {
        if (open.has(id)) continue;
        this.copies.delete(id);
        this.seen.delete(id);
        this.skipped.delete(id);
        if (copy.file !== null) await rm(join(this.options.dir, copy.file), { force: true });
      }
      this.reportState();
    } catch (error) {
      this.logger?.warn({ err: error instanceof Error ? error.message : String(error) }, "recovery copy failed");
    } finally {
      this.running = false;
    }
  }

  private async copy(doc: EmbeddedDocument): Promise<void> {
    const previous = this.copies.get(doc.id);
    const revision = doc.revision;
    if (doc.filePath !== undefined && !doc.isDirty && revision === 0) {
      // Unchanged since it was opened: its own file is its copy.
      this.copies.set(doc.id, { revision, file: null, bytes: 0, at: performance.now(), state: copiedState(doc) });
      if (previous?.file) await rm(join(this.options.dir, previous.file), { force: true });
      return;
    }
    // The document as it is now, its large buffers (pixels, masks) taken by reference: only the rest is copied,
    // which is quick whatever the document's size. The buffers are written from where they are, between turns.
    let snapshot: DocumentSnapshot;
    const state = copiedState(doc);
    try {
      snapshot = snapshotDocument(doc);
    } catch (error) {
      this.skipped.set(doc.id, revision);
      this.logger?.warn({ documentId: doc.id, err: error instanceof Error ? error.message : String(error) }, "recovery copy failed");
      return;
    }
    const others = [...this.copies].reduce((sum, [id, copy]) => sum + (id === doc.id ? 0 : copy.bytes), 0);
    if (others + snapshot.bytes > this.options.maxBytes) {
      this.skipped.set(doc.id, revision);
      this.logger?.warn({ documentId: doc.id, bytes: snapshot.bytes, maxBytes: this.options.maxBytes }, "recovery copy skipped: past its disk budget");
      return;
    }
    const file = `${doc.id}-${revision}.copy`;
    // A change while the buffers were written may have torn them (an edit in place): that copy is not kept.
    const kept = await this.writeSliced(join(this.options.dir, file), snapshot.parts, () => doc.revision === revision && this.store.list().includes(doc));
    if (!kept) return;
    this.copies.set(doc.id, { revision, file, bytes: snapshot.bytes, at: performance.now(), state });
    if (previous?.file) await rm(join(this.options.dir, previous.file), { force: true });
  }

  /**
   * Writes `parts` to a temporary file a slice at a time (each write runs off the thread), then renames it into
   * place when `still()` holds (a crash leaves the previous copy whole); `false` when it was dropped instead.
   */
  private async writeSliced(path: string, parts: readonly ArrayBufferView[], still: () => boolean = () => true): Promise<boolean> {
    const temporary = `${path}.tmp`;
    const handle = await open(temporary, "w", 0o600);
    try {
      for (const part of parts) {
        const bytes = new Uint8Array(part.buffer, part.byteOffset, part.byteLength);
        for (let at = 0; at < bytes.length; at += this.options.writeSliceBytes) {
          if (this.stopped) return false;
          await handle.write(bytes, at, Math.min(this.options.writeSliceBytes, bytes.length - at));
        }
      }
    } finally {
      await handle.close();
    }
    if (!still()) {
      await rm(temporary, { force: true });
      return false;
    }
    await rename(temporary, path);
    return true;
  }

  private async writeIndex(): Promise<void> {
    const entries: IndexEntry[] = [];
    for (const doc of this.store.recentDocuments()) {
      const copy = this.copies.get(doc.id);
      if (copy === undefined) continue;
      // A document changed since its copy comes back as the copy has it, dirty flag and all; one that did not
      // change (a save or a rename keeps its revision) as it is now. Layer ids go on from where they are now, so
      // no id a client saw after the copy is given to another layer.
      const state = copy.revision === doc.revision || copy.state === undefined ? copiedState(doc) : copy.state;
      entries.push({
        id: doc.id,
        ...state,
        nextLayerId: doc.nextLayerId,
        copy: copy.file,
        revision: copy.revision,
      });
    }
    const text = JSON.stringify(entries);
    if (text === this.lastIndex) return;
    await this.writeSliced(join(this.options.dir, INDEX_FILE), [Buffer.from(text)]);
    this.lastIndex = text;
  }
}

/**
 * Reopens the documents `ids` of a lost editor from its recovery copies, each under its old id with its layer ids,
 * file path, name, dirty flag and active layers; the selection is not kept. Documents are activated in their old
 * order. A document without a copy, or whose copy cannot be read, is reported not recovered.
 */
export async function restoreDocuments(
  dir: string,
  ids: readonly number[],
  store: DocumentStore,
  read: { maxPixels: number; maxGroupDepth: number; maxBytes: number },
  copies?: RecoveryCopies | undefined,
): Promise<RecoveredDocument[]> {
  let entries: IndexEntry[] = [];
  try {
    entries = JSON.parse(await readFile(join(dir, INDEX_FILE), "utf8")) as IndexEntry[];
  } catch {
    // No index yet: nothing was copied before the loss.
  }
  const wanted = new Set(ids);
  const kept = new Set<string>([INDEX_FILE]);
  const out = new Map<number, RecoveredDocument>();
  for (const entry of entries) {
    if (!wanted.has(entry.id)) continue;
    const path = entry.copy === null ? entry.filePath : join(dir, entry.copy);
    try {
      if (path === undefined) throw new Error("no file");
      const { size } = await stat(path);
      const meta = { name: entry.name, filePath: entry.filePath, isDirty: entry.isDirty, revision: entry.revision };
      if (entry.copy === null) {
        // Unchanged since it was opened: read again from its file, which gives its layers the same ids.
        const file = await readDocumentFile(path, read);
        const content = { ...file.content, activeLayerIds: entry.activeLayerIds, nextLayerId: Math.max(entry.nextLayerId, file.content.nextLayerId) };
        store.restore(entry.id, content, { ...meta, source: file.source });
      } else {
        const doc = readSnapshot(await readFile(path));
        store.restore(entry.id, { ...doc, activeLayerIds: entry.activeLayerIds }, { ...meta, source: doc.source });
      }
      out.set(entry.id, { documentId: entry.id, recovered: true });
      copies?.adopt(entry.id, entry.revision, entry.copy, entry.copy === null ? 0 : size);
      if (entry.copy !== null) kept.add(entry.copy);
    } catch (error) {
      out.set(entry.id, { documentId: entry.id, recovered: false, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  // Copies of documents not brought back are of no more use.
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!kept.has(name)) await rm(join(dir, name), { force: true });
  }
  return ids.map((id) => out.get(id) ?? { documentId: id, recovered: false, reason: "no recovery copy was made before the editor was lost" });
}
