/*
 * The embedded editor's memory budget. Pixels are what an editor's memory goes to (4 bytes per pixel per layer),
 * and a few header bytes can ask for gigabytes of them, so every operation that allocates pixels asks the budget
 * first, with the size the headers give, and is refused with `PAYLOAD_TOO_LARGE` when it would not fit.
 *
 * What the open documents hold is not kept as a running sum that every edit would have to update: it is measured
 * from the documents themselves (each distinct pixel buffer once) whenever the budget is asked. That is a walk over
 * the layers, microseconds for thousands of layers, and it can never drift: closing a document gives its memory
 * back by no longer being there.
 */
import { BridgeError } from "../../protocol/errors.js";
import type { EditorMemoryUse } from "../host.js";
import type { EmbeddedDocument, EmbeddedLayer } from "./document.js";
import { selectionMaskBytes } from "./selection.js";

/** Work under way that holds memory until it ends (a decode, a composite, an encode). */
export interface Reservation {
  /** Gives the bytes back; calling it again does nothing. */
  release(): void;
}

/** Pixel bytes of one RGBA raster of `width × height`. */
export function rgbaBytes(width: number, height: number): number {
  return Math.max(0, width) * Math.max(0, height) * 4;
}

/** Adds every buffer a layer (a group: its children) holds to `seen`. */
function collectBuffers(layers: readonly EmbeddedLayer[], seen: Set<ArrayBufferLike>, sizes: Map<ArrayBufferLike, number>): void {
  for (const layer of layers) {
    const masks = [layer.mask?.data, layer.vectorMask?.data, layer.vectorShape?.data];
    const views = layer.kind === "group" ? masks : [layer.data, ...masks];
    if (layer.kind === "group") collectBuffers(layer.children, seen, sizes);
    for (const view of views) {
      if (view === undefined || view.byteLength === 0 || seen.has(view.buffer)) continue;
      seen.add(view.buffer);
      sizes.set(view.buffer, view.buffer.byteLength);
    }
  }
}

/** Bytes the documents hold: each distinct pixel or mask buffer once (duplicated layers share theirs), selections, and a PSD's original file. */
export function documentsBytes(documents: Iterable<EmbeddedDocument>): number {
  const seen = new Set<ArrayBufferLike>();
  const sizes = new Map<ArrayBufferLike, number>();
  let selections = 0;
  for (const doc of documents) {
    collectBuffers(doc.layers, seen, sizes);
    selections += selectionMaskBytes(doc);
    // A PSD keeps its original file to save back in its own mode (verbatim channels, resources).
    const original = doc.source?.psdFile?.opened.original.bytes;
    if (original !== undefined) sizes.set(original.buffer, original.byteLength);
  }
  let total = selections;
  for (const size of sizes.values()) total += size;
  return total;
}

/**
 * The budget of one editor: its open documents, the work under way, and the segmentation model's session once
 * loaded. Ask {@link EditorMemory.check} before a synchronous allocation, {@link EditorMemory.reserve} before
 * asynchronous work (other calls run while it waits on sharp) and release the reservation when the work is done
 * or its result belongs to a document.
 *
 * @example
 * const held = memory.reserve("import", rgbaBytes(size.width, size.height), { layer: name });
 * try {
 *   raster = await decode();
 *   insert(raster);
 * } finally {
 *   held.release();
 * }
 */
export class EditorMemory {
  private working = 0;
  /** The documents' undo history: what it holds beyond the documents is charged, and it gives memory back first. */
  private history: { bytes(): number; reclaim(bytes: number): void } | undefined;

  constructor(
    readonly budgetBytes: number,
    private readonly documents: () => Iterable<EmbeddedDocument>,
    private readonly modelBytes: () => number = () => 0,
  ) {}

  /** Charges the documents' history to this budget; it is asked to give memory back before work is refused. */
  attachHistory(history: { bytes(): number; reclaim(bytes: number): void }): void {
    this.history = history;
  }

  /** What is charged now, and the budget. */
  use(): EditorMemoryUse {
    const docs = [...this.documents()];
    const documentBytes = documentsBytes(docs);
    const modelBytes = this.modelBytes();
    const historyBytes = this.history?.bytes() ?? 0;
    return {
      budgetBytes: this.budgetBytes,
      usedBytes: documentBytes + this.working + modelBytes + historyBytes,
      documentBytes,
      workingBytes: this.working,
      modelBytes,
      historyBytes,
      documents: docs.length,
    };
  }

  /**
   * Refuses `bytes` more when they would not fit. `what` names the work in the message ("Opening a.psd",
   * "Importing a layer of 2000×1000"); `details` are added to the error's.
   * @throws BridgeError `PAYLOAD_TOO_LARGE` with `details: { limit: "editorMemoryBudgetBytes", what, bytes, usedBytes, budgetBytes }`.
   */
  check(what: string, bytes: number, details: Record<string, unknown> = {}): void {
    if (bytes <= 0) return;
    let { usedBytes } = this.use();
    if (usedBytes + bytes <= this.budgetBytes) return;
    // The oldest undo steps go before any work is refused.
    if (this.history !== undefined && this.history.bytes() > 0) {
      this.history.reclaim(usedBytes + bytes - this.budgetBytes);
      ({ usedBytes } = this.use());
      if (usedBytes + bytes <= this.budgetBytes) return;
    }
    const free = Math.max(0, this.budgetBytes - usedBytes);
    throw new BridgeError(
      "PAYLOAD_TOO_LARGE",
      `${what} needs ${formatBytes(bytes)} but the editor has ${formatBytes(free)} of its ${formatBytes(this.budgetBytes)} memory budget free; ` +
        "close documents or raise editorMemoryBudgetBytes",
      { details: { ...details, limit: "editorMemoryBudgetBytes", what, bytes, usedBytes, budgetBytes: this.budgetBytes } },
    );
  }

  /** {@link check}, then holds `bytes` until the reservation is released. */
  reserve(what: string, bytes: number, details: Record<string, unknown> = {}): Reservation {
    this.check(what, bytes, details);
    const held = Math.max(0, bytes);
    this.working += held;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.working -= held;
      },
    };
  }
}

/** `1.5 GiB`, `300 MiB`, `12 KiB`: sizes in messages. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(value >= 10 ? 0 : 1)} ${units[unit]}`;
}
