import { isLoopbackHost } from "../../loopback.js";
import { silentLogger } from "../../logger.js";
import { HISTORY_CHANGED_EVENT, type HostLayer, type HostRect } from "../../protocol/index.js";
import type { HostAdapter, HostInfo } from "../host.js";
import { actionOps } from "./actions.js";
import { documentOps } from "./documents.js";
import { editOps } from "./edits.js";
import { historyOps } from "./history.js";
import { PHOTOSHOP_EVENTS, photoshopEventStreams } from "./events.js";
import { imageOps } from "./images.js";
import { layerOps } from "./layers.js";
import { resolvePhotoshopLimits } from "./limits.js";
import { operationRunner } from "./operations.js";
import { noteLogger } from "./_internal/notes.js";
import type { PhotoshopAdapterOptions, PhotoshopHostOptions } from "./options.js";
import { RemoteLink } from "./remote-link.js";
import { Revisions } from "./revisions.js";
import { scriptOps } from "./scripts.js";
import { selectionOps } from "./selection.js";

export type { PhotoshopAdapterOptions, PhotoshopConnectOptions, PhotoshopHostOptions } from "./options.js";
export { PHOTOSHOP_LIMITS, resolvePhotoshopLimits } from "./limits.js";
export type { PhotoshopLimits } from "./limits.js";
export { RemoteLink } from "./remote-link.js";
export type { PhotoshopLink, PixmapReply, PixmapRequest } from "./link.js";

/**
 * The Photoshop editor behind a {@link PhotoshopLink}: every operation is one `.jsx` file returning a JSON
 * envelope; pixels come as pixmaps and are encoded here with sharp (never Photoshop's ImageMagick, whose
 * savePixmap path generator-core offers).
 */
export function createPhotoshopAdapter(options: PhotoshopAdapterOptions): HostAdapter {
  const { link } = options;
  const limits = resolvePhotoshopLimits(options.limits);
  const log = options.logger ?? silentLogger();
  const filesystem = options.filesystem ?? "local";
  const run = operationRunner(link, noteLogger(log));
  const images = imageOps({ run, link, limits });
  const revisions = new Revisions(limits.editEchoMs);

  // Derived events re-query outside the bridge's mailbox, each with its own deadline; a failed query reads as
  // "nothing" (no selection, no active layer), as when no document is open.
  const eventSignal = (): AbortSignal => AbortSignal.timeout(limits.eventQueryTimeoutMs);
  const streams = photoshopEventStreams(
    link,
    {
      selection: () => run<HostRect | null>(eventSignal(), "selection.get").catch(() => null),
      activeLayers: () =>
        run<{ layers: HostLayer[] }>(eventSignal(), "layer.active").then(
          (active) => active.layers,
          () => null,
        ),
      preview: () => images.activePreview(eventSignal()).catch(() => null),
    },
    limits.eventDebounceMs,
    revisions,
  );

  const { changes$, history } = historyOps({ run, revisions });

  return {
    kind: "photoshop",
    eventTypes: [...PHOTOSHOP_EVENTS, HISTORY_CHANGED_EVENT],
    filesystem,
    scriptsReachFiles: true,
    lost$: link.lost$,

    async connect(): Promise<HostInfo> {
      const version = await link.open();
      log.info({ actor: "host", editor: "photoshop", version }, "connected to Photoshop");
      return { hostVersion: `photoshop ${version}` };
    },

    close: () => link.close(),

    events: (type) => (type === HISTORY_CHANGED_EVENT ? changes$.asObservable() : streams.get(type)),

    ...documentOps({ run, filesystem, revisions }),
    ...layerOps({ run, filesystem, revisions }),
    ...editOps({ run, revisions, filesystem }),
    history,
    exportDocumentImage: images.exportDocumentImage,
    exportLayerImage: images.exportLayerImage,
    ...selectionOps({ run }),
    ...actionOps({ run, revisions }),
    ...scriptOps({ link, limits }),
  };
}

/**
 * Photoshop over Remote Connections (`--editor photoshop`): a TCP client of the framed, encrypted protocol.
 * The password is used only to derive the key and is never logged.
 *
 * @example
 * const host = createPhotoshopHost({ host: "127.0.0.1", port: 49494, password: process.env.BRIDGE_PHOTOSHOP_PASSWORD ?? "" });
 */
export function createPhotoshopHost(options: PhotoshopHostOptions): HostAdapter {
  const log = options.logger ?? silentLogger();
  const limits = resolvePhotoshopLimits(options.limits);
  const link = new RemoteLink({ host: options.host, port: options.port, password: options.password, limits, log });
  // Photoshop opens and writes paths on its own machine; only a loopback one shares this filesystem.
  const filesystem = isLoopbackHost(options.host) ? "local" : "remote";
  return createPhotoshopAdapter({ link, logger: log, limits, filesystem });
}
