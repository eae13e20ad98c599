import type { Observable } from "rxjs";
import type { Filesystem } from "../files/index.js";
import type {
  DataLoss,
  FileFormat,
  HostBounds,
  HostDocument,
  HostLayer,
  HostRect,
  ImageFormat,
  LayerImportImageParams,
  LayerPreviewPayload,
  SelectionPath,
} from "../protocol/index.js";

/**
 * What every call into an editor receives. `signal` aborts when the call's deadline passes or the bridge shuts
 * down; a host should stop work it can stop.
 */
export interface HostCallContext {
  readonly signal: AbortSignal;
  /** The logical client (or `http:…` lane) the call runs for; for logs only. */
  readonly clientId: string;
}

/** Which layer an operation targets. `active` is the document's first active layer. */
export type LayerRef =
  | { readonly by: "id"; readonly id: number }
  | { readonly by: "index"; readonly index: number }
  | { readonly by: "selectionIndex"; readonly index: number }
  | { readonly by: "active" };

/** Encoded pixels as the host produced them; methods turn them into data URIs or raw HTTP bodies. */
export interface EncodedImage {
  readonly bytes: Uint8Array;
  readonly format: ImageFormat;
  readonly width: number;
  readonly height: number;
  /** Where the pixels sit in the document. */
  readonly bounds: HostBounds;
}

export interface ExportOptions {
  readonly documentId?: number | undefined;
  readonly format: ImageFormat;
  readonly quality?: number | undefined;
  /** Scale so the longest edge is at most this many pixels (never enlarges). */
  readonly maxSize?: number | undefined;
  /** Uniform scale factor, applied before `maxSize`. */
  readonly scale?: number | undefined;
}

export interface HostInfo {
  /** Editor name and version, e.g. `"embedded 0.1.0"`; becomes `ServerInfo.hostVersion`. */
  readonly hostVersion?: string | undefined;
}

/** The host's own event stream names, beyond the spec's main events. */
export type HostEventType = "selection:changed" | "layer:selectionChange" | "layer:previewChange" | (string & {});

/**
 * One editor behind the bridge. Built-in methods are written once against this interface; an editor that cannot
 * do an operation leaves the optional member out and the bridge answers `NOT_SUPPORTED` naming it.
 *
 * Errors: throw `BridgeError` with `NO_DOCUMENT`, `DOCUMENT_NOT_FOUND`, `LAYER_NOT_FOUND`, `BAD_REQUEST`,
 * `NOT_SUPPORTED`, `JSX_FAILED`, `HOST_UNAVAILABLE`; anything else becomes `INTERNAL`.
 */
export interface HostAdapter {
  /** `embedded`, `photoshop`, `gimp`, or a test double's name. */
  readonly kind: string;
  /** The editor's own event names beyond the main events of spec §6, accepted by `event:subscribe`. */
  readonly eventTypes?: readonly string[];
  /**
   * Where the editor opens and writes the paths it is given. `remote` (an editor on another machine) means paths
   * cannot be resolved here: with files roots they get a lexical check only.
   * @default "local"
   */
  readonly filesystem?: Filesystem;
  /**
   * Whether `jsx:run`/`jsx:execute` scripts can read and write any file (Photoshop's ExtendScript, GIMP's
   * Script-Fu). Such scripts are refused while file access is confined, unless the operator allows them.
   * @default false
   */
  readonly scriptsReachFiles?: boolean;

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
   * Live events of one type, or `undefined` when the host never produces it. The bridge subscribes only while a
   * client is subscribed (reference-counted), so a host may start watchers or polling in the subscribe function.
   */
  events(type: HostEventType): Observable<unknown> | undefined;

  // Documents.
  listDocuments(ctx: HostCallContext): Promise<HostDocument[]>;
  /** The active document; `NO_DOCUMENT` when none is open. */
  currentDocument(ctx: HostCallContext): Promise<HostDocument>;
  getDocument(ctx: HostCallContext, documentId: number | undefined): Promise<HostDocument>;
  /** Opens a file; `path` was resolved against the files roots (and checked to be a regular file) by the caller. */
  openDocument?(ctx: HostCallContext, path: string): Promise<HostDocument>;
  createDocument?(
    ctx: HostCallContext,
    options: { width: number; height: number; name?: string | undefined; background?: string | undefined },
  ): Promise<HostDocument>;
  closeDocument?(ctx: HostCallContext, documentId: number | undefined): Promise<number>;
  /**
   * What a save of the document to `path` would drop compared with the file it was opened from (text layers,
   * ICC profile, …); empty when nothing. An editor whose saves lose nothing leaves it out.
   */
  saveLosses?(ctx: HostCallContext, options: { documentId: number; path: string }): Promise<DataLoss[]>;
  /**
   * Saves in the editor's layered format to `path` (already resolved by the caller), atomically where the editor
   * writes locally; `backup` keeps a replaced file as `<name>.bak`.
   */
  saveDocument?(
    ctx: HostCallContext,
    options: { documentId: number; path: string; backup: boolean },
  ): Promise<{ path: string; format: string; backupPath?: string | undefined }>;
  /** Writes a flattened image file to `path` (already resolved by the caller), atomically. */
  exportDocumentFile?(
    ctx: HostCallContext,
    options: { documentId?: number | undefined; path: string; format?: FileFormat | undefined; quality?: number | undefined },
  ): Promise<{ path: string; format: string; width: number; height: number; size: number }>;

  // Layers.
  /** The layer tree, top-most first, groups with `children`. */
  getLayers(ctx: HostCallContext, documentId: number | undefined): Promise<HostLayer[]>;
  /** One layer, or `null` for `{by: "active"}` when nothing is active. `LAYER_NOT_FOUND` otherwise. */
  getLayer(
    ctx: HostCallContext,
    options: { documentId?: number | undefined; ref: LayerRef; children?: boolean | undefined },
  ): Promise<HostLayer | null>;
  /** Makes these layers the active ones; returns them. Emits `layer:selectionChange`. */
  selectLayers?(ctx: HostCallContext, options: { documentId?: number | undefined; ids: number[] }): Promise<HostLayer[]>;
  importImage?(ctx: HostCallContext, params: LayerImportImageParams): Promise<HostLayer>;

  // Pixels.
  exportDocumentImage(ctx: HostCallContext, options: ExportOptions): Promise<EncodedImage>;
  exportLayerImage(ctx: HostCallContext, options: ExportOptions & { ref: LayerRef }): Promise<EncodedImage>;
  exportLayerWithSelectedPath?(
    ctx: HostCallContext,
    options: ExportOptions & { ref: LayerRef; strokeColor?: string | undefined; strokeWidth?: number | undefined },
  ): Promise<EncodedImage>;
  /** Preview of the active layer, longest edge ≤ `maxSize`; `null` when no layer is active. */
  layerPreview(
    ctx: HostCallContext,
    options: { documentId?: number | undefined; maxSize: number },
  ): Promise<LayerPreviewPayload>;

  // Selection.
  getSelection(ctx: HostCallContext, documentId: number | undefined): Promise<HostRect | null>;
  /** Replaces the selection with a rectangle (clipped to the canvas) or clears it. Emits `selection:changed`. */
  setSelection?(
    ctx: HostCallContext,
    options: { documentId?: number | undefined; rect: HostRect | null },
  ): Promise<HostRect | null>;
  /** Replaces the selection with an ellipse inside `rect` or a polygon (clipped to the canvas); returns its bbox. */
  setSelectionShape?(
    ctx: HostCallContext,
    options: {
      documentId?: number | undefined;
      shape: { kind: "ellipse"; rect: HostRect } | { kind: "polygon"; points: Array<{ x: number; y: number }> };
    },
  ): Promise<HostRect | null>;
  getSelectionPath?(
    ctx: HostCallContext,
    options: { documentId?: number | undefined; expand: number },
  ): Promise<SelectionPath | null>;

  // Actions and scripts.
  autoCutout?(ctx: HostCallContext, options: { documentId?: number | undefined; layerId?: number | undefined }): Promise<boolean>;
  removeBackground?(
    ctx: HostCallContext,
    options: { documentId?: number | undefined; layerId?: number | undefined },
  ): Promise<{ success: boolean }>;
  runScript?(
    ctx: HostCallContext,
    options: { script: string; language?: string | undefined; timeoutMs: number },
  ): Promise<unknown>;
  executeScript?(
    ctx: HostCallContext,
    options: { name: string; params: Record<string, unknown>; timeoutMs: number },
  ): Promise<unknown>;
}
