// One rxjs module, not its index (see events.ts).
import { FontCatalogue } from "./text/catalogue.js";
import { NEVER } from "rxjs/internal/observable/never";
import { DEFAULT_MAX_OPEN_FILE_BYTES, resolveOpenPath, type FileAccess } from "../../files/index.js";
import type { HostAdapter, HostCallContext, HostInfo } from "../host.js";
import { actionOps } from "./actions.js";
import { DEFAULT_LIMITS } from "../../limits.js";
import { CUTOUT_EVENT, EMBEDDED_CUTOUT_METHODS, modelSessionBytes } from "./cutout/index.js";
import type { EmbeddedDocument } from "./document.js";
import { documentOps } from "./documents.js";
import { EMBEDDED_EDIT_CAPABILITIES, editOps } from "./edits/index.js";
import { listComps } from "./edits/comps.js";
import { EMBEDDED_EVENT_TYPES, EmbeddedEvents, type DocumentChanges } from "./events.js";
import { imageOps, previewEvent } from "./images.js";
import { layerOps } from "./layers.js";
import { DEFAULT_MAX_DOCUMENT_PIXELS, DEFAULT_MAX_PSD_GROUP_DEPTH } from "./limits.js";
import { EditorMemory } from "./memory.js";
import { DEFAULT_HISTORY_BUDGET_PERCENT, DEFAULT_HISTORY_STEPS, EmbeddedHistory } from "./history.js";
import { HISTORY_CHANGED_EVENT } from "../../protocol/history.js";
import { EMBEDDED_HOST_VERSION, type EmbeddedHostOptions } from "./options.js";
import { SAMPLE_NAME, buildSampleContent } from "./sample.js";
import { RecoveryCopies, restoreDocuments } from "./recovery.js";
import { embeddedScriptLanguage, scriptOps } from "./scripts.js";
import { DEFAULT_SCRIPT_LIMITS, type ScriptLimits } from "./scripts/index.js";
import { selectionOps } from "./selection.js";
import { DocumentStore } from "./store.js";
import { activeHostLayers } from "./tree.js";
import { checkpoint } from "./work.js";

export { DEFAULT_MAX_DOCUMENT_PIXELS, DEFAULT_MAX_PSD_GROUP_DEPTH, ENCODER_MAX_PIXELS } from "./limits.js";
export { EMBEDDED_HOST_VERSION, type EmbeddedHostOptions } from "./options.js";

/**
 * The embedded headless editor: documents live in this process, pixels are composited in JS and encoded with
 * sharp, layered files are PSD via ag-psd. Each group of operations lives in its own file (`documents.ts`,
 * `layers.ts`, `images.ts`, `selection.ts`, `actions.ts`, `scripts.ts`); see `README.md` beside this file.
 *
 * @example
 * const host = createEmbeddedHost({ sample: true });
 * await host.connect();
 */
export function createEmbeddedHost(options: EmbeddedHostOptions = {}): HostAdapter {
  const maxDocumentPixels = options.maxDocumentPixels ?? DEFAULT_MAX_DOCUMENT_PIXELS;
  const maxPsdGroupDepth = options.maxPsdGroupDepth ?? DEFAULT_MAX_PSD_GROUP_DEPTH;
  const files: FileAccess = options.files ?? {
    policy: { roots: null },
    backupOnOverwrite: true,
    maxOpenFileBytes: DEFAULT_MAX_OPEN_FILE_BYTES,
    allowEditorScripts: false,
  };
  const store = new DocumentStore({
    firstId: options.firstDocumentId,
    onChange: (ids, nextId) => {
      // A document's history ends when it closes.
      history.keepOnly(ids);
      options.onDocumentsChange?.(ids, nextId);
      recovery?.reportState();
    },
  });
  const memory = new EditorMemory(options.memoryBudgetBytes ?? DEFAULT_LIMITS.editorMemoryBudgetBytes, () => store.list(), modelSessionBytes);
  const history = new EmbeddedHistory({
    maxSteps: options.historySteps ?? DEFAULT_HISTORY_STEPS,
    maxBytes: Math.floor((memory.budgetBytes * (options.historyBudgetPercent ?? DEFAULT_HISTORY_BUDGET_PERCENT)) / 100),
    documents: () => store.list(),
    changed: (doc, changes, method, revision) => events.notifyChanged(doc, changes, method, revision),
  });
  memory.attachHistory(history);
  const events = new EmbeddedEvents({
    selection: () => {
      const selection = store.active()?.selection;
      return selection ? { ...selection } : null;
    },
    activeLayers: () => {
      const doc = store.active();
      return doc ? activeHostLayers(doc) : null;
    },
    preview: () => previewEvent(store.active()),
    activeDocumentId: () => store.active()?.id,
  });
  events.onChange = (doc, changes) => history.noteChange(doc, changes);
  const deps = {
    maxDocumentPixels,
    memory,
    document: (documentId: number | undefined): EmbeddedDocument => store.get(documentId),
    changed: (doc: EmbeddedDocument, changes: DocumentChanges): void => events.notifyChanged(doc, changes),
    // Stops work whose caller has given up (cancelled, deadline passed, bridge shutting down).
    checkpoint,
  };
  const documents = documentOps({ store, events, memory, maxDocumentPixels, maxPsdGroupDepth, maxOpenFileBytes: files.maxOpenFileBytes, roots: files.policy.roots, checkpoint });
  const { openFile, ...documentMethods } = documents;
  const { reports$, ...actions } = actionOps({ ...deps, options: options.cutout, logger: options.logger });
  const scriptLimits: ScriptLimits = { ...DEFAULT_SCRIPT_LIMITS, ...options.scriptLimits };
  const fonts = new FontCatalogue(options.fontsDirs ?? [], options.systemFonts !== false);
  let connected = false;
  const recovery =
    options.recovery === undefined
      ? undefined
      : new RecoveryCopies(options.recovery, store, (state) => options.onRecoveryState?.(state), options.logger);
  // Every change makes a copy stale (or a selection exist): the bridge hears it before the call's answer.
  if (recovery !== undefined) events.stream("documentChanged")?.subscribe(() => recovery.reportState());

  const host: HostAdapter = {
    kind: "embedded",
    eventTypes: [...EMBEDDED_EVENT_TYPES, CUTOUT_EVENT],
    scriptLanguage: embeddedScriptLanguage(scriptLimits),
    cutoutMethods: EMBEDDED_CUTOUT_METHODS,
    lost$: NEVER,
    memoryUse: () => memory.use(),

    async connect(): Promise<HostInfo> {
      if (!connected) {
        if (options.recover !== undefined && options.recover.length > 0 && options.recovery !== undefined) {
          const read = { maxPixels: maxDocumentPixels, maxGroupDepth: maxPsdGroupDepth, maxBytes: Number.MAX_SAFE_INTEGER };
          const recovered = await restoreDocuments(options.recovery.dir, options.recover, store, read, recovery);
          if (store.active() !== undefined) events.activeDocumentChanged();
          options.onRecovered?.(recovered);
        } else if (options.open !== undefined) {
          // `--open` is read like any client path: inside the files roots, a regular file, bounded.
          await openFile((await resolveOpenPath(files, host, options.open)).path);
        } else if (options.sample !== false) {
          store.add(await buildSampleContent(), { name: SAMPLE_NAME });
          events.activeDocumentChanged();
        }
        connected = true;
        recovery?.start();
        recovery?.reportState();
      }
      return { hostVersion: EMBEDDED_HOST_VERSION };
    },

    async close(): Promise<void> {
      if (!connected) return;
      connected = false;
      recovery?.stop();
      store.clear();
    },

    events: (type) => (type === CUTOUT_EVENT ? reports$ : type === HISTORY_CHANGED_EVENT ? history.events : events.stream(type)),
    ...documentMethods,
    ...layerOps(deps),
    ...imageOps(deps),
    ...selectionOps(deps),
    ...actions,
    runScript: (ctx, scriptOptions) => scripts.runScript(ctx, scriptOptions),
    ...editOps({
      ...deps,
      fonts,
      store,
      history,
      changed: (doc, changes, method) => events.notifyChanged(doc, changes, method),
      documentAdded: () => events.activeDocumentChanged(),
    }),
    editCapabilities: EMBEDDED_EDIT_CAPABILITIES,
    history: async (ctx, request) => history.run(store.get(request.documentId), request, ctx.caller),
    listFonts: () => fonts.list(),
    layerComps: async (_ctx, { documentId }) => listComps(store.get(documentId)),
  };
  // What changes documents otherwise than by an edit is a step of its own, named after its method.
  const methodOf = { importLayer: "layer:importImage", setSelection: "selection:set", autoCutout: "action:autoCutout", removeBackground: "action:removeBackground", runScript: "jsx:run" } as const;
  for (const [op, method] of Object.entries(methodOf) as Array<[keyof typeof methodOf, string]>) {
    const inner = host[op] as ((ctx: HostCallContext, ...args: unknown[]) => Promise<unknown>) | undefined;
    if (inner === undefined) continue;
    (host as unknown as Record<string, unknown>)[op] = (ctx: HostCallContext, ...args: unknown[]) => history.around(ctx, method, () => inner(ctx, ...args));
  }
  // The script API calls the editor's own operations (open, save, export, cutouts), so it needs `host` itself.
  const scripts = scriptOps({ store, events, host, files, memory, maxDocumentPixels, limits: scriptLimits });
  return host;
}
