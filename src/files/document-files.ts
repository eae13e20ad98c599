/**
 * Opening, saving and exporting documents by path, with the bridge's file rules applied once for every way in
 * (wire methods and the embedded editor's scripts): the client's path is resolved against the files roots, a save
 * that would drop data is refused unless allowed, and an export never silently replaces a document's source file.
 */
import { extname } from "node:path";
import { BridgeError } from "../protocol/errors.js";
import type { DataLoss, FileFormat } from "../protocol/resources.js";
import { checkEncodable, formatForExtension, UNKNOWN_FILE_FORMAT } from "./formats.js";
import { refuseReplacingSource, refuseSilentLoss } from "./losses.js";
import type { FilePolicy } from "./policy.js";
import { resolveClientPath, type Filesystem, type ResolvedPath } from "./resolve.js";
import { serialisedSaves, writeFileAtomic } from "./write.js";

/** The bridge's file settings, as every file operation needs them. Plain data. */
export interface FileAccess {
  readonly policy: FilePolicy;
  /** Keep the file a save replaces as `<name>.bak` unless the call says otherwise. */
  readonly backupOnOverwrite: boolean;
  /** Largest document file `document:open` reads. */
  readonly maxOpenFileBytes: number;
  /**
   * Run `jsx:run`/`jsx:execute` on editors whose scripts can touch any file (Photoshop, GIMP) even while file
   * access is confined (`--allow-editor-scripts`); refused otherwise.
   */
  readonly allowEditorScripts: boolean;
}

/** Where an editor reads its files; `local` unless it says otherwise. */
interface EditorFiles {
  readonly kind: string;
  readonly filesystem?: Filesystem | undefined;
}

interface DocumentRef {
  readonly id: number;
  readonly filePath?: string | undefined;
}

export interface SaveResult {
  readonly path: string;
  readonly format: string;
  readonly backupPath?: string | undefined;
}

/** The editor operations a save needs (a `HostAdapter` has them). */
export interface SavingEditor<C> extends EditorFiles {
  getDocument(ctx: C, documentId: number | undefined): Promise<DocumentRef>;
  /** What a file written to `path` would lack compared with what the document was opened with. */
  saveLosses?(ctx: C, options: { documentId: number; path: string }): Promise<DataLoss[]>;
  saveDocument?(ctx: C, options: { documentId: number; path: string; backup: boolean }): Promise<SaveResult>;
}

export interface ExportFileResult {
  path: string;
  format: string;
  width: number;
  height: number;
  size: number;
}

/** The editor operations a file export needs: the document's size and its composite in a format. */
export interface ExportingEditor<C> extends EditorFiles {
  listDocuments(ctx: C): Promise<readonly DocumentRef[]>;
  getDocument(ctx: C, documentId: number | undefined): Promise<DocumentRef & { readonly width: number; readonly height: number }>;
  exportDocumentImage(
    ctx: C,
    options: { documentId: number; format: FileFormat; quality?: number | undefined; size: { width: number; height: number }; alpha?: boolean | undefined },
  ): Promise<{ readonly bytes: Uint8Array; readonly width: number; readonly height: number }>;
}

function need<T>(editor: EditorFiles, op: T | undefined, capability: string): T {
  if (op === undefined) {
    throw new BridgeError("NOT_SUPPORTED", `The ${editor.kind} editor does not support ${capability} yet`, {
      details: { capability, editor: editor.kind },
    });
  }
  return op;
}

/** Resolves the path of a document to open: an existing regular file within the open limit, inside the roots. */
export function resolveOpenPath(access: FileAccess, editor: EditorFiles, path: string): Promise<ResolvedPath> {
  return resolveClientPath(access.policy, path, { purpose: "read", filesystem: editor.filesystem, maxBytes: access.maxOpenFileBytes });
}

/**
 * Saves a document to `savePath` or its own file. The editor reports what the file would lack; a non-empty list
 * is `WOULD_LOSE_DATA` unless `allowLossy`, and is returned as `dropped` when allowed.
 */
export async function saveDocumentFile<C>(
  editor: SavingEditor<C>,
  ctx: C,
  access: FileAccess,
  params: { documentId?: number | undefined; savePath?: string | undefined; allowLossy?: boolean | undefined; backupOnOverwrite?: boolean | undefined },
): Promise<SaveResult & { dropped?: DataLoss[] }> {
  const save = need(editor, editor.saveDocument?.bind(editor), "document:save");
  const doc = await editor.getDocument(ctx, params.documentId);
  const requested = params.savePath ?? doc.filePath;
  if (requested === undefined) {
    throw new BridgeError("BAD_REQUEST", `Document ${doc.id} has no file yet; pass savePath`, { details: { documentId: doc.id } });
  }
  const target = await resolveClientPath(access.policy, requested, { purpose: "write", filesystem: editor.filesystem });
  const losses = (await editor.saveLosses?.(ctx, { documentId: doc.id, path: target.path })) ?? [];
  refuseSilentLoss(losses, { allowLossy: params.allowLossy, path: requested, documentId: doc.id });
  const backup = params.backupOnOverwrite ?? access.backupOnOverwrite;
  const saved = await serialisedSaves(target.path, () => save(ctx, { documentId: doc.id, path: target.path, backup }));
  return losses.length > 0 ? { ...saved, dropped: losses } : saved;
}

/**
 * Writes the document's composite to an image file (format from `format` or the extension), atomically; refuses
 * to replace a file an open document was read from unless `overwrite`.
 */
export async function exportDocumentFile<C>(
  editor: ExportingEditor<C>,
  ctx: C,
  access: FileAccess,
  params: { documentId?: number | undefined; path: string; format?: FileFormat | undefined; quality?: number | undefined; alpha?: boolean | undefined; overwrite?: boolean | undefined },
): Promise<ExportFileResult> {
  const target = await resolveClientPath(access.policy, params.path, { purpose: "write", filesystem: editor.filesystem });
  const named = formatForExtension(extname(target.path));
  // JPEG bytes in a .png is a file every other program misreads: the path and the format must agree.
  if (params.format !== undefined && named !== undefined && named !== params.format) {
    throw new BridgeError("BAD_REQUEST", `The path ends in ${extname(target.path)} (${named}) but the format asked is ${params.format}: change one`, {
      details: { path: params.path, format: params.format, pathFormat: named },
    });
  }
  const format = params.format ?? named;
  if (format === undefined) throw new BridgeError("BAD_REQUEST", UNKNOWN_FILE_FORMAT, { details: { path: params.path } });
  if (target.size !== undefined || editor.filesystem === "remote") {
    const sources = (await editor.listDocuments(ctx)).filter((doc) => doc.filePath === target.path).map((doc) => doc.id);
    refuseReplacingSource(params.path, sources, params.overwrite);
  }
  const doc = await editor.getDocument(ctx, params.documentId);
  const size = { width: doc.width, height: doc.height };
  checkEncodable(format, size);
  const image = await editor.exportDocumentImage(ctx, { documentId: doc.id, format, quality: params.quality, size, ...(params.alpha === true ? { alpha: true } : {}) });
  await writeFileAtomic(target.path, image.bytes, { label: params.path, within: editor.filesystem === "remote" ? null : access.policy.roots });
  return { path: target.path, format, width: image.width, height: image.height, size: image.bytes.byteLength };
}
