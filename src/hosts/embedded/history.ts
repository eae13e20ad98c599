/**
 * The embedded editor's history: per open document, the steps its edits made, each undoable and redoable, kept
 * within a number of steps and a share of the editor's memory budget.
 *
 * A step keeps the document as that step left it, without copying any pixels: pixel and mask buffers are replaced by
 * edits, never written into (see `document.ts`), so a state only holds on to the buffers an edit replaced. A layer
 * record an edit did not touch is the very object of the step before it (`capture` reuses it), so a step costs the
 * layers it changed, the buffers only it still holds, and the tree's arrays. What the steps hold beyond the open
 * documents is charged to the memory budget; the oldest steps are dropped first when the history passes its share of
 * the budget or its step count, or when other work needs the memory.
 *
 * Changes made otherwise than by an edit (an import, a selection set, a cutout, a script) become steps of their own,
 * named after their method, so an undo never silently takes them back with the edit before them.
 */
import { Subject } from "rxjs/internal/Subject";
import { BridgeError } from "../../protocol/errors.js";
import type { HistoryChangedEventData } from "../../protocol/history.js";
import type { HostCallContext } from "../host.js";
import type { HistoryAnswer, HistoryRequest, HostHistoryStep } from "../history.js";
import type { EmbeddedDocument, EmbeddedLayer } from "./document.js";
import type { DocumentChanges } from "./events.js";
import { restoreSelection, selectionState, type SelectionState } from "./selection.js";

/** Most steps kept per document. @default 100 */
export const DEFAULT_HISTORY_STEPS = 100;
/** Share of the editor's memory budget, in percent, the histories of its documents may hold together. @default 25 */
export const DEFAULT_HISTORY_BUDGET_PERCENT = 25;
/** What one kept layer record is charged besides its buffers: its fields and its place in the tree's arrays. */
export const LAYER_RECORD_BYTES = 256;

/** A document as one step left it. Layers are frozen records sharing their buffers with the document's. */
interface DocumentState {
  readonly width: number;
  readonly height: number;
  readonly resolution: number;
  readonly nextLayerId: number;
  readonly activeLayerIds: readonly number[];
  readonly layers: readonly EmbeddedLayer[];
  readonly selection: SelectionState;
  /** The global light, which `layer:setEffects` may set with a layer's style. */
  readonly globalLight: EmbeddedDocument["globalLight"];
  readonly layerComps: EmbeddedDocument["layerComps"];
}

interface Step extends HostHistoryStep {
  readonly after: DocumentState;
  /** Order of making across every document: the oldest step of the editor goes first. */
  readonly seq: number;
}

/** Who made a change, and with which method. */
interface Maker {
  readonly method: string;
  readonly by: string;
}

class DocumentHistory {
  steps: Step[] = [];
  current = 0;
  dropped = 0;
  /** An atomic batch under way: the step it started at, and the document's revision then. */
  group: { start: number; revision: number } | undefined;
  /** A change made since the last step otherwise than by a recorded call. */
  outside: Maker | undefined;

  constructor(public base: DocumentState) {}

  state(index: number): DocumentState {
    return index === 0 ? this.base : this.steps[index - 1]!.after;
  }
}

export interface HistoryOptions {
  readonly maxSteps: number;
  /** Bytes the histories may hold together, beyond what the open documents hold. */
  readonly maxBytes: number;
  /** The open documents (their buffers are not charged to the history). */
  documents(): Iterable<EmbeddedDocument>;
  /** Reports a change the history made to a document; `revision` set: the document is put back at it, not raised. */
  changed(doc: EmbeddedDocument, changes: DocumentChanges, method: string, revision?: number): void;
}

const EVERYTHING: DocumentChanges = { pixels: true, layers: true, selection: true, activeLayers: true };

export class EmbeddedHistory {
  private readonly histories = new Map<number, DocumentHistory>();
  /** Documents whose changes are being recorded by the history itself (an edit, an undo): not outside changes. */
  private readonly busy = new Set<number>();
  private readonly changes$ = new Subject<HistoryChangedEventData>();
  private seq = 0;
  private heldBytes: number | undefined;
  /** Who is making changes otherwise than by an edit, while they make them. */
  private maker: Maker | undefined;

  constructor(private readonly options: HistoryOptions) {}

  /** `history:changed` events. */
  get events() {
    return this.changes$.asObservable();
  }

  /** Bytes the steps hold that the open documents do not. */
  bytes(): number {
    this.heldBytes ??= this.measure();
    return this.heldBytes;
  }

  /** Drops the oldest steps until `bytes` are free again (or none is left to drop); for the memory budget. */
  reclaim(bytes: number): void {
    const goal = this.bytes() - bytes;
    const touched = new Set<number>();
    while (this.bytes() > goal && this.dropOldest(touched)) {}
    for (const id of touched) this.announce(id);
  }

  /** Runs one edit of `doc` as one step named after `method`. */
  async record<T>(doc: EmbeddedDocument, maker: Maker, run: () => Promise<T>): Promise<T> {
    const history = this.historyOf(doc);
    this.settle(doc, history);
    this.busy.add(doc.id);
    let result: T;
    try {
      result = await run();
    } finally {
      this.busy.delete(doc.id);
    }
    this.push(doc, history, maker);
    return result;
  }

  /**
   * Runs a call that may change documents otherwise than by an edit (an import, a script): what it changed becomes
   * one step per document, named after its method.
   */
  async around<T>(ctx: HostCallContext, fallback: string, run: () => Promise<T>): Promise<T> {
    this.settleAll();
    this.maker = { method: ctx.method ?? fallback, by: ctx.caller };
    try {
      return await run();
    } finally {
      this.settleAll();
      this.maker = undefined;
    }
  }

  /** Told of every change of a document (`notifyChanged`). */
  noteChange(doc: { readonly id: number }, changes: DocumentChanges): void {
    this.heldBytes = undefined;
    if (this.busy.has(doc.id)) return;
    // Which layers are active is not a step of its own (as in Photoshop); an undo puts back the step's.
    if (changes.pixels !== true && changes.layers !== true && changes.selection !== true) return;
    const history = this.histories.get(doc.id);
    if (history === undefined) return;
    history.outside ??= this.maker ?? { method: "change", by: "editor" };
  }

  /** Forgets the histories of documents no longer open. */
  keepOnly(ids: readonly number[]): void {
    const open = new Set(ids);
    for (const id of [...this.histories.keys()]) if (!open.has(id)) this.histories.delete(id);
    this.heldBytes = undefined;
  }

  /** Answers a history call. @throws BridgeError `BAD_REQUEST` for a step out of range or a batch state that does not fit */
  run(doc: EmbeddedDocument, request: HistoryRequest, by: string): HistoryAnswer {
    const history = this.historyOf(doc);
    this.settle(doc, history);
    switch (request.op) {
      case "list":
        break;
      case "undo":
        this.move(doc, history, history.current - request.steps, request.op, request.steps);
        break;
      case "redo":
        this.move(doc, history, history.current + request.steps, request.op, request.steps);
        break;
      case "go":
        this.move(doc, history, request.index, request.op, undefined);
        break;
      case "begin":
        if (history.group !== undefined) throw new BridgeError("BAD_REQUEST", `Document ${doc.id} is already in an atomic batch`, { details: { documentId: doc.id } });
        history.group = { start: history.current, revision: doc.revision };
        break;
      case "commit":
        this.commit(doc, history, { method: request.name, by });
        break;
      case "rollback": {
        const rolledBack = this.rollback(doc, history);
        return { ...this.answer(doc, history), rolledBack };
      }
    }
    return this.answer(doc, history);
  }

  private answer(doc: EmbeddedDocument, history: DocumentHistory): HistoryAnswer {
    return {
      documentId: doc.id,
      steps: history.steps.map(({ name, method, by }) => ({ name, method, by })),
      current: history.current,
      dropped: history.dropped,
      revision: doc.revision,
    };
  }

  private historyOf(doc: EmbeddedDocument): DocumentHistory {
    let history = this.histories.get(doc.id);
    if (history === undefined) {
      history = new DocumentHistory(capture(doc, undefined));
      this.histories.set(doc.id, history);
    }
    return history;
  }

  /** A change made otherwise becomes a step before anything else happens to the document. */
  private settle(doc: EmbeddedDocument, history: DocumentHistory): void {
    const outside = history.outside;
    if (outside === undefined) return;
    history.outside = undefined;
    this.push(doc, history, outside);
  }

  private settleAll(): void {
    for (const doc of this.options.documents()) {
      const history = this.histories.get(doc.id);
      if (history?.outside !== undefined) this.settle(doc, history);
    }
  }

  private push(doc: EmbeddedDocument, history: DocumentHistory, maker: Maker): void {
    const after = capture(doc, history.state(history.current));
    // A new step after an undo: the undone steps cannot be redone any more.
    history.steps.length = history.current;
    history.steps.push({ name: maker.method, method: maker.method, by: maker.by, after, seq: ++this.seq });
    history.current = history.steps.length;
    this.heldBytes = undefined;
    const touched = new Set<number>([doc.id]);
    this.trim(touched);
    for (const id of touched) this.announce(id);
  }

  private move(doc: EmbeddedDocument, history: DocumentHistory, target: number, op: "undo" | "redo" | "go", steps: number | undefined): void {
    if (history.group !== undefined) throw new BridgeError("BAD_REQUEST", `Document ${doc.id} is in an atomic batch`, { details: { documentId: doc.id } });
    const length = history.steps.length;
    if (target < 0 || target > length) {
      const details = { documentId: doc.id, current: history.current, length, dropped: history.dropped, ...(steps === undefined ? { index: target } : { steps }) };
      const message =
        op === "undo"
          ? `Only ${history.current} steps of document ${doc.id} can be undone, not ${steps}`
          : op === "redo"
            ? `Only ${length - history.current} steps of document ${doc.id} can be redone, not ${steps}`
            : `Document ${doc.id} has steps 0 to ${length}, not ${target}`;
      throw new BridgeError("BAD_REQUEST", message, { details });
    }
    this.restore(doc, history.state(target), `history:${op}`);
    history.current = target;
    this.announce(doc.id);
  }

  private commit(doc: EmbeddedDocument, history: DocumentHistory, maker: Maker): void {
    const group = history.group;
    if (group === undefined) throw new BridgeError("BAD_REQUEST", `Document ${doc.id} is not in an atomic batch`, { details: { documentId: doc.id } });
    history.group = undefined;
    const made = history.current - group.start;
    if (made > 0) {
      const step: Step = { name: maker.method, method: maker.method, by: maker.by, after: history.state(history.current), seq: ++this.seq };
      history.steps.splice(group.start, made, step);
      history.current = group.start + 1;
      this.heldBytes = undefined;
    }
    this.announce(doc.id);
  }

  /** Puts the document back as the batch found it, revision included; answers how many steps were undone. */
  private rollback(doc: EmbeddedDocument, history: DocumentHistory): number {
    const group = history.group;
    if (group === undefined) throw new BridgeError("BAD_REQUEST", `Document ${doc.id} is not in an atomic batch`, { details: { documentId: doc.id } });
    history.group = undefined;
    const made = history.current - group.start;
    if (made > 0) {
      this.restore(doc, history.state(group.start), "batch", group.revision);
      history.steps.length = group.start;
      history.current = group.start;
    }
    this.announce(doc.id);
    return made;
  }

  private restore(doc: EmbeddedDocument, state: DocumentState, method: string, revision?: number): void {
    this.busy.add(doc.id);
    try {
      doc.width = state.width;
      doc.height = state.height;
      doc.resolution = state.resolution;
      // Ids are never given twice: a layer an undo took away keeps its id to itself.
      doc.nextLayerId = Math.max(doc.nextLayerId, state.nextLayerId);
      doc.activeLayerIds = [...state.activeLayerIds];
      doc.layers = state.layers.map(materialize);
      restoreSelection(doc, state.selection);
      doc.globalLight = state.globalLight;
      doc.layerComps = state.layerComps;
      this.options.changed(doc, EVERYTHING, method, revision);
    } finally {
      this.busy.delete(doc.id);
    }
    this.heldBytes = undefined;
  }

  /** Keeps every history within its step count and all of them within their bytes; `touched` gets who lost steps. */
  private trim(touched: Set<number>): void {
    for (const [id, history] of this.histories) {
      while (history.steps.length > this.options.maxSteps && this.dropFrom(history)) touched.add(id);
    }
    while (this.bytes() > this.options.maxBytes && this.dropOldest(touched)) {}
  }

  /** Drops the editor's oldest step; false when none can go. */
  private dropOldest(touched: Set<number>): boolean {
    let oldest: [number, DocumentHistory] | undefined;
    for (const entry of this.histories) {
      const first = droppable(entry[1]);
      if (first !== undefined && (oldest === undefined || first.seq < droppable(oldest[1])!.seq)) oldest = entry;
    }
    if (oldest === undefined) return false;
    this.dropFrom(oldest[1]);
    touched.add(oldest[0]);
    return true;
  }

  /**
   * Drops a history's oldest step (its state becomes the base), or, while every step is undone, its newest (the
   * base is the document as it is). A batch under way keeps the state it started from.
   */
  private dropFrom(history: DocumentHistory): boolean {
    if (droppable(history) === undefined) return false;
    if (history.current === 0) {
      history.steps.pop();
    } else {
      history.base = history.steps.shift()!.after;
      history.current--;
      if (history.group !== undefined) history.group.start--;
    }
    history.dropped++;
    this.heldBytes = undefined;
    return true;
  }

  private announce(documentId: number): void {
    const history = this.histories.get(documentId);
    if (history === undefined || history.group !== undefined) return;
    this.changes$.next({ documentId, current: history.current, length: history.steps.length });
  }

  private measure(): number {
    const live = new Set<ArrayBufferLike>();
    for (const doc of this.options.documents()) {
      collect(doc.layers, live, undefined);
      const mask = selectionState(doc).mask;
      if (mask !== undefined) live.add(mask.data.buffer);
    }
    const held = new Map<ArrayBufferLike, number>();
    const records = new Set<EmbeddedLayer>();
    const hold = (state: DocumentState): void => {
      collect(state.layers, held, records);
      const mask = state.selection.mask;
      if (mask !== undefined) held.set(mask.data.buffer, mask.data.buffer.byteLength);
    };
    for (const history of this.histories.values()) {
      hold(history.base);
      for (const step of history.steps) hold(step.after);
    }
    let total = records.size * LAYER_RECORD_BYTES;
    for (const [buffer, size] of held) if (!live.has(buffer)) total += size;
    return total;
  }
}

/** The step a history would drop next, or undefined when it must keep all it has. */
function droppable(history: DocumentHistory): Step | undefined {
  if (history.steps.length === 0) return undefined;
  if (history.group !== undefined && history.group.start === 0) return undefined;
  return history.current === 0 ? history.steps[history.steps.length - 1] : history.steps[0];
}

/** Adds the buffers of layers (their children too) to `buffers`, and the layer records to `records`. */
function collect(layers: readonly EmbeddedLayer[], buffers: Set<ArrayBufferLike> | Map<ArrayBufferLike, number>, records: Set<EmbeddedLayer> | undefined): void {
  for (const layer of layers) {
    records?.add(layer);
    const views = [layer.mask?.data, layer.vectorMask?.data, layer.vectorShape?.data, layer.kind === "group" ? undefined : layer.data];
    for (const view of views) {
      if (view === undefined || view.byteLength === 0) continue;
      if (buffers instanceof Map) buffers.set(view.buffer, view.buffer.byteLength);
      else buffers.add(view.buffer);
    }
    if (layer.kind === "group") collect(layer.children, buffers, records);
  }
}

/** The document as it is now; layer records equal to those of `previous` are that state's own. */
function capture(doc: EmbeddedDocument, previous: DocumentState | undefined): DocumentState {
  const known = new Map<number, EmbeddedLayer>();
  if (previous !== undefined) index(previous.layers, known);
  const sameActive = previous !== undefined && previous.activeLayerIds.length === doc.activeLayerIds.length && previous.activeLayerIds.every((id, i) => id === doc.activeLayerIds[i]);
  return {
    width: doc.width,
    height: doc.height,
    resolution: doc.resolution,
    nextLayerId: doc.nextLayerId,
    activeLayerIds: sameActive ? previous.activeLayerIds : Object.freeze([...doc.activeLayerIds]),
    layers: Object.freeze(doc.layers.map((layer) => snapshot(layer, known))),
    selection: selectionState(doc),
    globalLight: doc.globalLight,
    layerComps: doc.layerComps,
  };
}

function index(layers: readonly EmbeddedLayer[], into: Map<number, EmbeddedLayer>): void {
  for (const layer of layers) {
    into.set(layer.id, layer);
    if (layer.kind === "group") index(layer.children, into);
  }
}

/** A frozen record of a layer: the known one when nothing in it changed. */
function snapshot(layer: EmbeddedLayer, known: ReadonlyMap<number, EmbeddedLayer>): EmbeddedLayer {
  const children = layer.kind === "group" ? layer.children.map((child) => snapshot(child, known)) : undefined;
  const before = known.get(layer.id);
  if (before !== undefined && sameLayer(before, layer, children)) return before;
  return Object.freeze(children === undefined ? { ...layer } : { ...layer, children: Object.freeze(children) as EmbeddedLayer[] }) as EmbeddedLayer;
}

function sameLayer(before: EmbeddedLayer, live: EmbeddedLayer, children: readonly EmbeddedLayer[] | undefined): boolean {
  const keys = Object.keys(live);
  if (keys.length !== Object.keys(before).length) return false;
  for (const key of keys) {
    if (key === "children") {
      const had = (before as { children?: readonly EmbeddedLayer[] }).children;
      if (had === undefined || children === undefined || had.length !== children.length || had.some((child, i) => child !== children[i])) return false;
    } else if ((before as unknown as Record<string, unknown>)[key] !== (live as unknown as Record<string, unknown>)[key]) {
      return false;
    }
  }
  return true;
}

/** A live, changeable copy of a kept layer record. */
function materialize(layer: EmbeddedLayer): EmbeddedLayer {
  return layer.kind === "group" ? { ...layer, children: layer.children.map(materialize) } : { ...layer };
}
