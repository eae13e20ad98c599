/*
 * What stands in for an editor on a bridge that runs none (`--editors 0`, a cluster's front door). It is never
 * placed, listed or started: the bridge's own events (`#ready`, `#closing`) go out through its event bus, and
 * every call it would be asked to run answers `HOST_UNAVAILABLE`: a front door sends its work to other bridges.
 */
import { NEVER } from "rxjs";
import { BridgeError } from "../protocol/index.js";
import { CUTOUT_EVENT } from "./embedded/cutout/report.js";
import { EMBEDDED_EVENT_TYPES } from "./embedded/events.js";
import type { HostAdapter } from "./host.js";
import { EDITOR_RESTARTED_EVENT } from "./isolated/protocol.js";
import { PHOTOSHOP_EVENTS } from "./photoshop/events.js";

/** `kind` of the stand-in: what `getServerInfo.editor` says of a front door. */
export const NO_EDITOR_KIND = "none";

/** The error every call on the stand-in answers. */
export function noEditorHere(): BridgeError {
  return new BridgeError("HOST_UNAVAILABLE", "This bridge runs no editor (--editors 0), and no other bridge's editor takes calls now", {
    details: { editors: 0 },
    retryable: true,
  });
}

/**
 * The stand-in. It accepts subscriptions to the events of every kind of editor (they come from the other
 * bridges' editors), and never produces one itself.
 */
export function createNoEditorHost(): HostAdapter {
  const refuse = (): Promise<never> => Promise.reject(noEditorHere());
  return {
    kind: NO_EDITOR_KIND,
    eventTypes: [...new Set<string>([...EMBEDDED_EVENT_TYPES, CUTOUT_EVENT, EDITOR_RESTARTED_EVENT, ...PHOTOSHOP_EVENTS])],
    connect: refuse,
    close: () => Promise.resolve(),
    lost$: NEVER,
    events: () => undefined,
    listDocuments: refuse,
    getDocument: refuse,
    getDocumentTree: refuse,
    exportDocumentImage: refuse,
    exportLayerImage: refuse,
    getSelection: refuse,
  };
}
