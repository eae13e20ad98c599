import type { Observable } from "rxjs";
import type { FileAccess, Filesystem } from "../files/index.js";
import type { CutoutMethod, DataLoss, FileFormat, FontInfo, HostBounds, HostDocument, HostLayer, HostRect } from "../protocol/index.js";
import type { EditCapabilities, EditOutcome, EditRequest, LayerCompList } from "./edits.js";
import type { HistoryAnswer, HistoryRequest } from "./history.js";

/*
 * The narrow editor interface. `src/methods` decides behaviour (defaults, layer references, sizes, previews, data
 * URIs, file rules) once; an editor takes resolved values and returns plain data. Everything that crosses it is
 * structured-clone-able (numbers, strings, plain objects, arrays, `Uint8Array`), so an editor can run behind a
 * `postMessage` (a worker) or a network hop without the methods noticing.
 */

/**
 * What every call into an editor receives. `signal` aborts when the call's deadline passes or the bridge shuts
 * down; an editor should stop work it can stop.
 */
export interface HostCallContext {
  /** Aborts when the call was cancelled or ran out of time; its `reason` is the `BridgeError` the caller got. */
  readonly signal: AbortSignal;
  /** Who the call runs for, as logs may name it (`client:<id prefix>`, `http:<address>`, `plugin:<id>`). */
  readonly caller: string;
  /** The method the call runs for (`layer:fill`, `layer:importImage`…), where the bridge knows it. */
  readonly method?: string | undefined;
  /**
   * Reports how far the call has come: `progress` of `total` (a fraction of 1 when `total` is omitted), with an
   * optional short message. Cheap to call often: the bridge keeps values monotonic and rate-limits what it sends.
   * Absent when nobody asked for progress.
   */
  readonly progress?: ProgressReporter | undefined;
  /**
   * Throws the abort reason once the call is cancelled or out of time. Long loops call it every few rows: where
   * the editor runs in its own process, it reads a flag shared with a thread that is never blocked, so it sees a
   * cancellation even while the editor's own thread is too busy to read a message. Absent: check `signal`.
   */
  readonly checkpoint?: (() => void) | undefined;
  /**
   * When the bridge gives up on the call (`performance.now()` of the bridge's process). A cancelled call keeps
   * running to a checkpoint; an editor that has not come back by then is treated as stuck.
   */
  readonly deadline?: number | undefined;
}

/** See {@link HostCallContext.progress}. */
export type ProgressReporter = (progress: number, total?: number, message?: string) => void;

/** A colour as bytes: red, green, blue, alpha (0–255). */
export type Rgba = readonly [number, number, number, number];

/** An output size in pixels, decided by the methods. */
export interface PixelSize {
  readonly width: number;
  readonly height: number;
}

/** Encoded pixels as the editor produced them; the methods turn them into data URIs or raw HTTP bodies. */
export interface EncodedImage {
  readonly bytes: Uint8Array;
  readonly format: FileFormat;
  readonly width: number;
  readonly height: number;
  /** Where the pixels sit in the document; all zero for an empty layer (encoded as 1×1 transparent). */
  readonly bounds: HostBounds;
}

/** A document and its layer tree (top-most first, groups with `children`), read in one call. */
export interface DocumentTree {
  readonly document: HostDocument;
  readonly layers: HostLayer[];
}

/** A selection outline: SVG path data in document pixels and the box it covers. */
export interface SelectionOutline {
  readonly d: string;
  readonly box: HostRect;
}

/** An outline to stroke over an exported layer: path data in document pixels, colour and width in output pixels. */
export interface OutlineStroke extends SelectionOutline {
  readonly color: Rgba;
  readonly width: number;
}

/** A selection to set, in document pixels; rectangles arrive clipped to the canvas. */
export type SelectionShape =
  | { readonly kind: "rect"; readonly rect: HostRect }
  | { readonly kind: "ellipse"; readonly rect: HostRect }
  | { readonly kind: "polygon"; readonly points: ReadonlyArray<{ readonly x: number; readonly y: number }> };

/** Image formats an import accepts, recognised from the bytes. */
export type ImportImageFormat = "png" | "jpeg" | "webp" | "gif" | "tiff";

/** An image to place as a layer, every choice already made by the methods. */
export interface ImportLayerOptions {
  readonly documentId: number;
  /**
   * The encoded image (its header was checked: format, size within the pixel limit); `width`/`height` are its
   * upright size (EXIF orientation applied), which the editor's layer has unless `size` differs.
   */
  readonly image: { readonly bytes: Uint8Array; readonly format: ImportImageFormat; readonly width: number; readonly height: number };
  /** Size of the new layer's pixels; the image is scaled to it when it differs. */
  readonly size: PixelSize;
  /** Top-left of the new layer in document pixels. */
  readonly position: { readonly x: number; readonly y: number };
  readonly name: string;
  /** Insert directly above this layer (in its group), or at the top of the document when `null`. */
  readonly aboveLayerId: number | null;
}

/**
 * A `layer:previewChange` as an editor emits it: the active layer and its preview, already encoded (PNG, longest
 * edge ≤ `PREVIEW_MAX_SIZE`); `null` when no layer is active. The bridge builds the wire payload.
 */
export interface PreviewEvent {
  readonly documentId: number;
  readonly layer: { readonly id: number; readonly name: string; readonly index: number };
  readonly image: EncodedImage;
}

/** The scripts an editor runs for `jsx:run` / `jsx:execute`. */
export interface ScriptLanguage {
  /** Accepted `language` values; the first is the editor's own, used when a call names none. */
  readonly names: readonly string[];
  /** Extension of named scripts in the script folders (`.js`, `.jsx`, `.scm`). */
  readonly extension: string;
  /** What the scripts are, for messages ("JavaScript", "ExtendScript", "Script-Fu"). */
  readonly label: string;
  /** Largest script source, in bytes. */
  readonly maxBytes: number;
}

export interface HostInfo {
  /** Editor name and version, e.g. `"embedded 0.1.0"`; becomes `ServerInfo.hostVersion`. */
  readonly hostVersion?: string | undefined;
}

/** What a cutout did, for editors that say more than whether it found a subject. */
export interface CutoutOutcome {
  readonly success: boolean;
  readonly method: Exclude<CutoutMethod, "auto">;
  /** Share of the layer found to be subject, 0–1. */
  readonly coverage: number;
  /** Why no subject was found, when `success` is false. */
  readonly reason?: string | undefined;
}

/** The host's own event stream names, beyond the spec's main events. */
export type HostEventType = "selection:changed" | "layer:selectionChange" | "layer:previewChange" | (string & {});

/**
 * An editor's memory budget and its use, in bytes. Every document, layer, import and decoded image is charged
 * before it is allocated; what would not fit is refused with `PAYLOAD_TOO_LARGE`.
 */
export interface EditorMemoryUse {
  /** The budget (`editorMemoryBudgetBytes`). */
  readonly budgetBytes: number;
  /** Everything charged now: documents, work under way and the model. */
  readonly usedBytes: number;
  /** Pixels and masks of the open documents. */
  readonly documentBytes: number;
  /** Held by calls running now (decodes, composites, encodes). */
  readonly workingBytes: number;
  /** The segmentation model's session, once loaded. */
  readonly modelBytes: number;
  /** Held by the documents' undo history beyond what the documents themselves hold. */
  readonly historyBytes?: number | undefined;
  /** Open documents. */
  readonly documents: number;
}

/** What an editor brought back after a loss, in its own document ids. */
export interface EditorRecovery {
  readonly documents: ReadonlyArray<{ readonly documentId: number; readonly recovered: boolean; readonly lost: Array<"document" | "changes" | "selection"> }>;
}

/**
 * One editor behind the bridge. An editor that cannot do an operation leaves the optional member out and the
 * bridge answers `NOT_SUPPORTED` naming it. `documentId` absent means the editor's active document.
 *
 * Errors: throw `BridgeError` with `NO_DOCUMENT`, `DOCUMENT_NOT_FOUND`, `LAYER_NOT_FOUND`, `BAD_REQUEST`,
 * `NOT_SUPPORTED`, `PAYLOAD_TOO_LARGE`, `JSX_FAILED`, `TIMEOUT`, `HOST_UNAVAILABLE`; anything else becomes `INTERNAL`.
 */
export interface HostAdapter {
  /** `embedded`, `photoshop`, `gimp`, or a test double's name. */
  readonly kind: string;
  /** The editor's own event names beyond the main events of accepted by `event:subscribe`. */
  readonly eventTypes?: readonly string[];
  /**
   * Where the editor opens and writes the paths it is given. `remote` (an editor on another machine) means paths
   * cannot be resolved here: with files roots they get a lexical check only.
   * @default "local"
   */
  readonly filesystem?: Filesystem;
  /**
   * Hands the editor the bridge's file rules (live: the roots become real paths when the bridge starts), once,
   * before `connect()`. An editor that opens or writes files by path itself (GIMP) keeps to them: it reads and
   * writes the client's paths through the bridge's confined file access instead of by path.
   * @default none: the editor is only given paths the bridge resolved
   */
  useFileAccess?(files: FileAccess): void;
  /**
   * Whether scripts can read and write any file (Photoshop's ExtendScript, GIMP's Script-Fu). Such scripts are
   * refused while file access is confined, unless the operator allows them.
   * @default false
   */
  readonly scriptsReachFiles?: boolean;
  /**
   * How many calls that change nothing the editor takes at once (each still finishes as if alone). An editor that
   * answers over a hop with its own queue (a separate process) overlaps them; the bridge caps it with the
   * `hostReadConcurrency` limit.
   * @default 1
   */
  readonly readConcurrency?: number;
  /** The scripts `runScript` runs; absent with `runScript`. */
  readonly scriptLanguage?: ScriptLanguage;
  /**
   * The answer to a read the adapter already holds (its copy of the editor's last answer, kept until something may
   * have changed it), given without a call; {@link NOT_AT_HAND} when it holds none. The bridge asks only when no
   * call waits in the editor's queue and none that changes anything runs, so the answer is the one a call started
   * at that moment would get. @default none: every read is a call
   */
  peek?(op: PeekableOp, args: readonly unknown[]): unknown;
  /**
   * The editor's memory budget and what is charged to it now, for the operator's status; `undefined` from an
   * editor that keeps no budget (Photoshop, GIMP) or has not reported one yet (starting).
   * @default none
   */
  memoryUse?(): EditorMemoryUse | undefined;
  /**
   * After `connect()` brought the editor back from a loss: which of the lost editor's documents (its own ids) were
   * reopened from recovery copies, and what each lost. Taken once; `undefined` when there is nothing new to report.
   * @default none: every document of a lost editor is gone
   */
  takeRecovery?(): EditorRecovery | undefined;

  /** Connects to (or starts) the editor. Rejects when the editor cannot be reached. */
  connect(): Promise<HostInfo>;
  /** Releases the editor. Idempotent. */
  close(): Promise<void>;
  /**
   * Emits once when the connection to the editor is lost after `connect()` resolved. The host session then fails
   * queued and running calls with `HOST_UNAVAILABLE` and calls `connect()` again with backoff.
   */
  readonly lost$: Observable<Error>;
  /**
   * Live events of one type, or `undefined` when the editor never produces it. Subscribed only while a client is
   * (reference-counted), so an editor may start watchers in the subscribe function. `layer:previewChange` emits
   * {@link PreviewEvent} or `null`; the other main events emit their wire data.
   */
  events(type: HostEventType): Observable<unknown> | undefined;

  // Documents.
  listDocuments(ctx: HostCallContext): Promise<HostDocument[]>;
  /** A document, or the active one; `NO_DOCUMENT` when none is open, `DOCUMENT_NOT_FOUND` for an unknown id. */
  getDocument(ctx: HostCallContext, documentId: number | undefined): Promise<HostDocument>;
  /** A document with its layer tree in one call (layer references are resolved from it). */
  getDocumentTree(ctx: HostCallContext, documentId: number | undefined): Promise<DocumentTree>;
  /** Opens a file at a path the caller resolved against the files roots (and checked to be a regular file). */
  openDocument?(ctx: HostCallContext, path: string): Promise<HostDocument>;
  /** A new document that becomes the active one; size and name checked by the caller. */
  createDocument?(ctx: HostCallContext, options: { width: number; height: number; name: string; background: Rgba }): Promise<HostDocument>;
  closeDocument?(ctx: HostCallContext, documentId: number): Promise<void>;
  /**
   * What a save of the document to `path` would drop compared with the file it was opened from (text layers,
   * ICC profile, …); empty when nothing. An editor whose saves lose nothing leaves it out.
   */
  saveLosses?(ctx: HostCallContext, options: { documentId: number; path: string }): Promise<DataLoss[]>;
  /**
   * Saves in the editor's layered format to `path` (resolved by the caller), atomically where the editor writes
   * locally; `backup` keeps a replaced file as `<name>.bak`.
   */
  saveDocument?(
    ctx: HostCallContext,
    options: { documentId: number; path: string; backup: boolean },
  ): Promise<{ path: string; format: string; backupPath?: string | undefined }>;

  // Layers.
  /** Makes exactly these (existing, checked) layers the active ones. */
  selectLayers?(ctx: HostCallContext, options: { documentId: number; ids: readonly number[] }): Promise<void>;
  /** Places an image as a new pixel layer and makes it the active one; returns its id. */
  importLayer?(ctx: HostCallContext, options: ImportLayerOptions): Promise<number>;

  // Pixels.
  /** The composite at exactly `size`, in `format` (`tiff` for file exports only). */
  exportDocumentImage(
    ctx: HostCallContext,
    /** `alpha`: keep an alpha channel though every pixel is opaque (an editor that drops it then). */
    options: { documentId: number | undefined; format: FileFormat; quality?: number | undefined; size: PixelSize; alpha?: boolean | undefined },
  ): Promise<EncodedImage>;
  /**
   * One layer (a group: its composite) at exactly `size`, covering the layer's `rect`; an empty layer is a 1×1
   * transparent image with zero bounds. `outline`, when given, is stroked over it.
   */
  exportLayerImage(
    ctx: HostCallContext,
    options: {
      documentId: number;
      layerId: number;
      format: FileFormat;
      quality?: number | undefined;
      size: PixelSize;
      outline?: OutlineStroke | undefined;
    },
  ): Promise<EncodedImage>;

  // Selection.
  /** The selection's bounding rectangle, or `null`. */
  getSelection(ctx: HostCallContext, documentId: number | undefined): Promise<HostRect | null>;
  /** Replaces the selection (`null` clears it); returns its bounds. Emits `selection:changed`. */
  setSelection?(ctx: HostCallContext, options: { documentId: number; shape: SelectionShape | null }): Promise<HostRect | null>;
  /** The selection's outline grown by `expand` pixels, or `null` when nothing is selected. */
  getSelectionOutline?(ctx: HostCallContext, options: { documentId: number | undefined; expand: number }): Promise<SelectionOutline | null>;

  // Editing.
  /**
   * Makes one edit of the vocabulary (see `edits.ts`), checked and with its defaults decided by the methods, as one
   * history step; raises the document's revision and emits `documentChanged` with `{documentId, revision, method}`.
   */
  edit?(ctx: HostCallContext, request: EditRequest): Promise<EditOutcome>;
  /** The edits this editor makes, and the fields of each it cannot honour. @default none */
  readonly editCapabilities?: EditCapabilities;
  /**
   * The document's history: list, undo, redo, go to a step, and the atomic batch's begin, commit and rollback (see
   * `history.ts`). Undo, redo and go raise the document's revision and emit `history:changed`
   * `{documentId, current, length}`. An editor without one leaves it out: `history:*` and atomic batches then answer
   * `NOT_SUPPORTED {editor, capability: "history"}`.
   */
  history?(ctx: HostCallContext, request: HistoryRequest): Promise<HistoryAnswer>;
  /**
   * The fonts a text edit may name, each once (family, style, PostScript name), sorted by family then style. An
   * editor with it makes text layers (`layer:updateText` among its edits); without it, `font:list` and text edits
   * answer `NOT_SUPPORTED {editor, capability: "text"}`.
   */
  listFonts?(ctx: HostCallContext): Promise<FontInfo[]>;
  /**
   * The document's layer comps (what a PSD keeps in image resource 1065). An editor with it makes the
   * `layerComp:*` edits; without it, `document:layerComps` answers `NOT_SUPPORTED {editor, capability: "layer comps"}`.
   */
  layerComps?(ctx: HostCallContext, options: { documentId: number }): Promise<LayerCompList>;

  // Actions and scripts.
  /**
   * Selects the subject of a pixel layer; whether it found one. `method` other than `auto` is only passed when the
   * editor lists it in {@link cutoutMethods}.
   */
  autoCutout?(ctx: HostCallContext, options: { documentId: number; layerId: number; method?: CutoutMethod | undefined }): Promise<boolean>;
  /**
   * Hides the background of a pixel layer (a mask where the editor has them); whether it found a subject, or that
   * with the way that ran and the subject's share of the layer.
   */
  removeBackground?(ctx: HostCallContext, options: { documentId: number; layerId: number; method?: CutoutMethod | undefined }): Promise<boolean | CutoutOutcome>;
  /** The cutout methods beyond `auto` this editor offers. @default none */
  readonly cutoutMethods?: readonly CutoutMethod[];
  /**
   * Runs a script in `language` (one of `scriptLanguage.names`) with `params` visible to it, answering the value it
   * completed with as plain data.
   */
  runScript?(
    ctx: HostCallContext,
    options: { source: string; language: string; params: Record<string, unknown> | undefined; timeoutMs: number },
  ): Promise<unknown>;
}

/** The reads an adapter may answer from what it holds ({@link HostAdapter.peek}). */
export type PeekableOp = "getSelection" | "getDocument" | "getDocumentTree" | "listDocuments";

/** What {@link HostAdapter.peek} answers when it holds no answer: the read has to be a call. */
export const NOT_AT_HAND: unique symbol = Symbol("not at hand");

/** The operations every editor has. */
export const REQUIRED_HOST_OPS = [
  "listDocuments",
  "getDocument",
  "getDocumentTree",
  "exportDocumentImage",
  "exportLayerImage",
  "getSelection",
] as const satisfies ReadonlyArray<keyof HostAdapter>;

/** The operations an editor may leave out; the bridge then answers `NOT_SUPPORTED` naming them. */
export const OPTIONAL_HOST_OPS = [
  "openDocument",
  "createDocument",
  "closeDocument",
  "saveLosses",
  "saveDocument",
  "selectLayers",
  "importLayer",
  "setSelection",
  "getSelectionOutline",
  "autoCutout",
  "removeBackground",
  "runScript",
  "edit",
  "history",
  "listFonts",
  "layerComps",
] as const satisfies ReadonlyArray<keyof HostAdapter>;
