import type { Observable } from "rxjs";
import { DEFAULT_LIMITS } from "../../limits.js";
import type { FontInfo } from "../../protocol/index.js";
import type { HostAdapter, HostCallContext, PreviewEvent } from "../host.js";
import { previewSize } from "../_internal/target-size.js";
import { actionOps } from "./actions.js";
import { createGimpConnection } from "./connection.js";
import { documentOps } from "./documents.js";
import { editOps, GIMP_EDIT_CAPABILITIES } from "./edits/index.js";
import { GimpEvents } from "./events.js";
import { parseFontList } from "./fonts.js";
import { exportLayer, imageOps } from "./images.js";
import { layerOps } from "./layers.js";
import { DEFAULT_POLL_INTERVAL_MS } from "./limits.js";
import type { GimpHostOptions } from "./options.js";
import { asList, asNumber, int } from "./scheme.js";
import { GIMP_SCRIPT_LANGUAGE, scriptOps } from "./scripts.js";
import { selectionOps } from "./selection.js";
import { GimpRevisions } from "./revisions.js";
import { stableEvent, withStableIds } from "./stable-ids.js";
import { activeLayer, parseTree, withoutChildren } from "./tree.js";
import type { Endpoint } from "./wire.js";

export { parseAttach } from "./connection.js";
export type { GimpConnectOptions, GimpHostOptions } from "./options.js";
export { GimpSupervisor } from "./supervisor.js";
export type { GimpSupervisorOptions } from "./supervisor.js";
export { GimpClient } from "./client.js";
export { exchange, encodeRequest, WireError } from "./wire.js";
export type { Endpoint, Reply } from "./wire.js";
export { lit, parseSexp, sexpToJson } from "./scheme.js";
export type { Sexp } from "./scheme.js";
export { SAMPLE_NAME, SAMPLE_SCRIPT } from "./sample.js";
export * from "./limits.js";
export { MAX_PARAMS_DEPTH } from "./scripts.js";

/**
 * The GIMP adapter's own events beyond the main ones: `documentChanged` `{documentId, revision, method?}` after every
 * edit and every other change the bridge made to an image's layers or pixels (scripts excepted: they say no image).
 */
export const GIMP_EVENT_TYPES: readonly string[] = ["documentChanged"];

/** The GIMP adapter: a `HostAdapter` plus what tests and operators need to see of the process. */
export interface GimpHost extends HostAdapter {
  /** Process id of the supervised GIMP (undefined when attached or not running). */
  readonly pid: number | undefined;
  /** The Script-Fu endpoint in use. */
  readonly endpoint: Endpoint | undefined;
  /** Open images (the adapter's ids) whose recovery copy holds their latest change. */
  readonly copiedDocumentIds: number[];
}

/**
 * GIMP 2.10 driven headless through its Script-Fu server. Without `attach` the
 * adapter starts and supervises `gimp-console-2.10` itself: a crash or a call past its deadline kills the process
 * group, `lost$` fires, and the bridge's reconnect starts a fresh GIMP, which reopens the recovery copies of the
 * images calls changed under their old image and layer ids (`recovery.ts`, `ids.ts`); the others are lost.
 * With `attach` it uses a server someone else runs and never restarts it. Index spaces: `docs/gimp.md`.
 *
 * @example
 * const host = createGimpHost({ binary: "gimp-console-2.10", attach: undefined });
 * const bridge = createBridge({ host });
 */
export function createGimpHost(options: GimpHostOptions): GimpHost {
  const session = createGimpConnection(options);
  const revisions = new GimpRevisions();

  /** The active layer of an image, read fresh for an event. */
  const activeOf = async (id: number) => activeLayer(parseTree(await session.call(undefined, `(br-tree ${int(id)})`)));

  async function preview(documentId: number): Promise<PreviewEvent | null> {
    const layer = await activeOf(documentId);
    if (!layer) return null;
    const size = previewSize(layer.rect.width, layer.rect.height);
    const image = await exportLayer(session, undefined, { documentId, layerId: layer.id, format: "png", size });
    return { documentId, layer: { id: layer.id, name: layer.name, index: layer.index }, image };
  }

  const events = new GimpEvents({
    intervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    busy: session.busy,
    poll: async () => {
      const fields = asList(await session.poll(`(br-poll-current ${int(session.activeImage ?? -1)})`), "poll");
      if (fields.length > 0) session.activeImage = asNumber(fields[0], "image id");
      return fields;
    },
    activeLayers: async (id) => {
      const layer = await activeOf(id);
      return layer ? [withoutChildren(layer)] : [];
    },
    preview,
    log: options.logger,
  });
  session.lost$.subscribe(() => events.stopAll());

  // GIMP reads its fonts once, as it starts: the list holds until a restart (a GIMP attached to may be another).
  let fonts: Promise<FontInfo[]> | undefined;
  session.lost$.subscribe(() => {
    fonts = undefined;
  });
  const listFonts = (ctx: HostCallContext): Promise<FontInfo[]> => {
    if (fonts !== undefined) return fonts;
    const listed = session.call(ctx, `(gimp-fonts-get-list "")`).then(parseFontList);
    fonts = listed;
    listed.catch(() => {
      if (fonts === listed) fonts = undefined;
    });
    return listed;
  };

  return {
    kind: "gimp",
    eventTypes: GIMP_EVENT_TYPES,
    editCapabilities: GIMP_EDIT_CAPABILITIES,
    filesystem: session.filesystem,
    scriptsReachFiles: true,
    scriptLanguage: GIMP_SCRIPT_LANGUAGE,
    lost$: session.lost$,
    get pid() {
      return session.pid;
    },
    get endpoint() {
      return session.endpoint;
    },
    useFileAccess: (files) => session.useFileAccess(files),
    connect: () => session.connect(),
    async close(): Promise<void> {
      events.stopAll();
      await session.close();
    },
    get copiedDocumentIds() {
      return session.recovery?.copiedDocumentIds ?? [];
    },
    takeRecovery: () => session.recovery?.take(),
    listFonts,
    events: (type) => {
      if (type === "documentChanged") return revisions.events;
      const stream = events.stream(type);
      return stream === undefined ? undefined : (stableEvent(type, stream, session.ids) as Observable<unknown>);
    },
    ...withStableIds(
      {
        ...documentOps(session),
        ...layerOps(session),
        ...imageOps(session),
        ...selectionOps(session),
        ...actionOps(session),
        ...scriptOps(session),
        ...editOps(session, { maxDocumentPixels: options.maxDocumentPixels ?? DEFAULT_LIMITS.maxDocumentPixels }, listFonts),
      },
      session.ids,
      session.recovery,
      revisions,
    ),
  };
}
