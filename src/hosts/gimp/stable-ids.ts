import { map, type Observable } from "rxjs";
import { BridgeError, type HostDocument, type HostLayer } from "../../protocol/index.js";
import type { EditOp, EditPlace } from "../edits.js";
import type { DocumentTree, HostAdapter, HostCallContext, PreviewEvent } from "../host.js";
import type { GimpEditMade } from "./edits/index.js";
import type { GimpIds } from "./ids.js";
import type { GimpRecovery } from "./recovery.js";
import type { GimpRevisions } from "./revisions.js";

/** The operations whose ids are GIMP's inside the adapter and stable outside it. */
type Ops = Required<
  Pick<
    HostAdapter,
    | "listDocuments"
    | "getDocument"
    | "getDocumentTree"
    | "openDocument"
    | "createDocument"
    | "closeDocument"
    | "saveLosses"
    | "saveDocument"
    | "selectLayers"
    | "importLayer"
    | "exportDocumentImage"
    | "exportLayerImage"
    | "getSelection"
    | "setSelection"
    | "getSelectionOutline"
    | "autoCutout"
    | "removeBackground"
    | "runScript"
  >
>;

/** The GIMP operations in GIMP's ids, edits included (answering what they made in GIMP's ids). */
type GimpOps = Ops & { edit(ctx: HostCallContext, documentId: number, edit: EditOp): Promise<GimpEditMade> };

/** Errors of an edit that refused it before anything changed. */
const REFUSED: ReadonlySet<string> = new Set(["BAD_REQUEST", "LAYER_NOT_FOUND", "DOCUMENT_NOT_FOUND", "NO_DOCUMENT", "NOT_SUPPORTED", "PAYLOAD_TOO_LARGE", "FONT_NOT_FOUND"]);

/** An edit with every layer id it names turned by `layer`. */
function editWithLayers(edit: EditOp, layer: (id: number) => number): EditOp {
  const place = (p: EditPlace): EditPlace =>
    "above" in p ? { above: layer(p.above) } : "below" in p ? { below: layer(p.below) } : "parent" in p ? { parent: layer(p.parent) } : p;
  const out: Record<string, unknown> = { ...edit };
  if ("layerId" in edit && edit.layerId !== undefined) out["layerId"] = layer(edit.layerId);
  if ("layerIds" in edit) out["layerIds"] = edit.layerIds.map(layer);
  if ("place" in edit) out["place"] = place(edit.place);
  return out as unknown as EditOp;
}

/**
 * The GIMP operations seen through the adapter's stable ids (see `ids.ts`): every image and layer id going in is
 * turned into GIMP's and every one coming out (documents, trees, new layers, events, error details) into the
 * adapter's. Calls that may change an image are reported to the recovery copies as they start and end. Scripts
 * (`jsx:run`) see and return GIMP's own ids: after a restart those differ from the ids the other calls use.
 */
export function withStableIds(
  ops: GimpOps,
  ids: GimpIds,
  recovery: GimpRecovery | undefined,
  revisions: GimpRevisions,
): Ops & Required<Pick<HostAdapter, "edit">> {
  /** Errors that already name the adapter's ids. */
  const stable = new WeakSet<BridgeError>();
  const notFound = (error: BridgeError): never => {
    stable.add(error);
    throw error;
  };
  const image = (id: number): number => {
    const gimpId = ids.images.in(id);
    if (gimpId === undefined) return notFound(new BridgeError("DOCUMENT_NOT_FOUND", `No open GIMP image with id ${id}`, { details: { documentId: id } }));
    return gimpId;
  };
  const optionalImage = (id: number | undefined): number | undefined => (id === undefined ? undefined : image(id));
  const layer = (id: number): number => {
    const gimpId = ids.layers.in(id);
    if (gimpId === undefined) return notFound(new BridgeError("LAYER_NOT_FOUND", `No layer with id ${id} in this image`, { details: { layerId: id } }));
    return gimpId;
  };
  const outLayer = (l: HostLayer): HostLayer => {
    const out: HostLayer = { ...l, id: ids.layers.out(l.id) };
    if (l.children !== undefined) out.children = l.children.map(outLayer);
    return out;
  };
  const outDocument = (doc: HostDocument): HostDocument => {
    const id = ids.images.out(doc.id);
    return { ...doc, id, revision: revisions.of(id), activeLayerIds: doc.activeLayerIds.map((layerId) => ids.layers.out(layerId)) };
  };

  /** Runs a call, turning GIMP's ids in its error into the adapter's. */
  async function run<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof BridgeError) || stable.has(error)) throw error;
      const details = error.details ?? {};
      const documentId = details["documentId"];
      const layerId = details["layerId"];
      if (typeof documentId !== "number" && typeof layerId !== "number") throw error;
      const mapped = { ...details };
      let message = error.message;
      if (typeof documentId === "number") {
        mapped["documentId"] = ids.images.out(documentId);
        message = message.replace(String(documentId), String(mapped["documentId"]));
      }
      if (typeof layerId === "number") {
        mapped["layerId"] = ids.layers.out(layerId);
        message = message.replace(String(layerId), String(mapped["layerId"]));
      }
      throw new BridgeError(error.code, message, { details: mapped, ...(error.retryable === undefined ? {} : { retryable: error.retryable }), cause: error });
    }
  }

  /** Runs a call that may change image `id` (adapter id; `"all"` for any), telling the copies before and after. */
  async function changing<T>(id: number | "all" | undefined, call: () => Promise<T>): Promise<T> {
    const target = id ?? "all";
    recovery?.changed(target);
    try {
      return await run(call);
    } finally {
      recovery?.changed(target);
    }
  }

  /** Runs a call changing image `id`'s layers or pixels, raising its revision once the change is made. */
  async function revising<T>(id: number, call: () => Promise<T>): Promise<T> {
    const result = await changing(id, call);
    revisions.raise(id);
    return result;
  }

  return {
    edit: (ctx, { documentId, edit }) =>
      changing(documentId, async () => {
        let made: GimpEditMade;
        try {
          made = await ops.edit(ctx, image(documentId), editWithLayers(edit, layer));
        } catch (error) {
          // A failure inside GIMP's undo group may have changed the image part way: it counts as a change.
          if (!(error instanceof BridgeError) || !REFUSED.has(error.code)) revisions.raise(documentId, edit.op);
          throw error;
        }
        const revision = revisions.raise(documentId, edit.op);
        const copy = made.documentId === undefined ? undefined : ids.images.out(made.documentId);
        if (copy !== undefined) recovery?.changed(copy);
        return {
          revision,
          ...(made.layerId !== undefined ? { layerId: ids.layers.out(made.layerId) } : {}),
          ...(copy !== undefined ? { documentId: copy } : {}),
        };
      }),
    listDocuments: (ctx) => run(async () => (await ops.listDocuments(ctx)).map(outDocument)),
    getDocument: (ctx, documentId) => run(async () => outDocument(await ops.getDocument(ctx, optionalImage(documentId)))),
    getDocumentTree: (ctx, documentId) =>
      run(async (): Promise<DocumentTree> => {
        const tree = await ops.getDocumentTree(ctx, optionalImage(documentId));
        return { document: outDocument(tree.document), layers: tree.layers.map(outLayer) };
      }),
    openDocument: async (ctx, path) => {
      const doc = outDocument(await run(() => ops.openDocument(ctx, path)));
      recovery?.made(doc.id);
      return doc;
    },
    createDocument: async (ctx, options) => {
      const doc = outDocument(await run(() => ops.createDocument(ctx, options)));
      recovery?.made(doc.id);
      return doc;
    },
    closeDocument: async (ctx, documentId) => {
      await run(() => ops.closeDocument(ctx, image(documentId)));
      ids.images.drop(documentId);
      revisions.forget(documentId);
      recovery?.closed(documentId);
    },
    saveLosses: (ctx, options) => run(() => ops.saveLosses(ctx, { ...options, documentId: image(options.documentId) })),
    saveDocument: (ctx, options) => changing(options.documentId, () => ops.saveDocument(ctx, { ...options, documentId: image(options.documentId) })),
    selectLayers: (ctx, options) =>
      changing(options.documentId, () => ops.selectLayers(ctx, { documentId: image(options.documentId), ids: options.ids.map(layer) })),
    importLayer: (ctx, options) =>
      revising(options.documentId, async () =>
        ids.layers.out(
          await ops.importLayer(ctx, {
            ...options,
            documentId: image(options.documentId),
            aboveLayerId: options.aboveLayerId === null ? null : layer(options.aboveLayerId),
          }),
        ),
      ),
    exportDocumentImage: (ctx, options) => run(() => ops.exportDocumentImage(ctx, { ...options, documentId: optionalImage(options.documentId) })),
    exportLayerImage: (ctx, options) =>
      run(() => ops.exportLayerImage(ctx, { ...options, documentId: image(options.documentId), layerId: layer(options.layerId) })),
    getSelection: (ctx, documentId) => run(() => ops.getSelection(ctx, optionalImage(documentId))),
    setSelection: (ctx, options) => changing(options.documentId, () => ops.setSelection(ctx, { ...options, documentId: image(options.documentId) })),
    getSelectionOutline: (ctx, options) => run(() => ops.getSelectionOutline(ctx, { ...options, documentId: optionalImage(options.documentId) })),
    autoCutout: (ctx, options) =>
      changing(options.documentId, () => ops.autoCutout(ctx, { ...options, documentId: image(options.documentId), layerId: layer(options.layerId) })),
    removeBackground: (ctx, options) =>
      revising(options.documentId, () => ops.removeBackground(ctx, { ...options, documentId: image(options.documentId), layerId: layer(options.layerId) })),
    runScript: async (ctx: HostCallContext, options) => {
      try {
        return await changing("all", () => ops.runScript(ctx, options));
      } finally {
        revisions.raiseAll();
      }
    },
  };
}

/** An event of the GIMP poller with its ids turned into the adapter's. */
export function stableEvent(type: string, source: Observable<unknown>, ids: GimpIds): Observable<unknown> {
  const outLayer = (l: HostLayer): HostLayer => ({ ...l, id: ids.layers.out(l.id) });
  if (type === "layer:selectionChange") return source.pipe(map((layers) => (Array.isArray(layers) ? (layers as HostLayer[]).map(outLayer) : layers)));
  if (type === "layer:previewChange") {
    return source.pipe(
      map((event) => {
        if (event === null || typeof event !== "object") return event;
        const preview = event as PreviewEvent;
        return { ...preview, documentId: ids.images.out(preview.documentId), layer: { ...preview.layer, id: ids.layers.out(preview.layer.id) } };
      }),
    );
  }
  return source;
}
