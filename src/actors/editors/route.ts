/*
 * Where a call to the editors goes: this bridge's editors, another bridge of the cluster, every bridge of it, or
 * nowhere (a front door with nowhere to send it). The dispatcher asks once per host-bound call and runs the route it
 * is handed; which editor of this bridge's pool takes a local call is the pool's choice (`EditorPool.route`).
 */
import type { EditorChangedEventData } from "../../protocol/index.js";
import type { Logger } from "../../logger.js";
import type { MethodRoute } from "../../methods/index.js";
import type { EditorPool } from "./pool.js";

/** Where a call goes. */
export type Route =
  /** This bridge's editors (one, or every one for a method of route `all`). */
  | { readonly to: "local" }
  /** Another bridge of the cluster: the one holding the named document or editor, or a lighter one. */
  | { readonly to: "remote"; readonly bridge: string; readonly editor: string | undefined }
  /** This bridge's editors and every other bridge's, their answers concatenated (a method of route `all`). */
  | { readonly to: "every-bridge" }
  /** Nowhere: a front door (no editors of its own) that no other bridge can take the call from. */
  | { readonly to: "front-door" };

/** Who calls, as routing sees it. */
export interface RoutedCaller {
  /** Mailbox lane of the caller. */
  readonly lane: string;
  /** The logical client calling, or null (HTTP, plugins, other bridges). */
  readonly client: MovableClient | null;
  /**
   * The caller's editor: a logical client's (read again after a move), or the one an HTTP request, a plugin or
   * another bridge named.
   */
  readonly editorId?: string | undefined;
}

/** A logical client as routing sees it: its editor, and how it is told it has another. */
export interface MovableClient {
  readonly editorId: string | undefined;
  readonly logName: string;
  moveTo(data: EditorChangedEventData): void;
}

/**
 * Decides a call's route from its method's `route`, the `documentId` its params name (if any) and its caller.
 */
export type Router = (route: MethodRoute, documentId: number | undefined, caller: RoutedCaller) => Route;

/** A call as it leaves for another bridge: the `remote` route, run by the cluster. */
export interface ForwardedCall {
  readonly method: string;
  readonly params: unknown;
  /** The editor the caller named, if any (an id of the other bridge's). */
  readonly editor?: string | undefined;
  /** The caller's mailbox lane on its own bridge. */
  readonly lane: string;
  /** The call's deadline, from when it is sent. */
  readonly timeoutMs: number;
  readonly parts: readonly Uint8Array[];
}

const LOCAL: Route = { to: "local" };
const EVERY_BRIDGE: Route = { to: "every-bridge" };
const FRONT_DOOR: Route = { to: "front-door" };

/** A bridge alone: every call runs on its own editors. */
export const routeHere: Router = () => LOCAL;

/**
 * A bridge of a cluster. A method of route `all` runs on every bridge, once: a call another bridge sent
 * (`fromAnotherBridge(lane)`) is answered for this bridge's editors only. Before anything else, a logical client
 * whose editor's bridge is gone is moved to an editor that is there (and told so by `editor:changed`). Then the
 * pool says whether the call's document or editor is elsewhere; on a front door what no bridge takes is refused.
 */
export function clusterRouter(pool: EditorPool, log: Logger, fromAnotherBridge: (lane: string) => boolean): Router {
  return (route, documentId, caller) => {
    if (route === "all") return fromAnotherBridge(caller.lane) ? LOCAL : EVERY_BRIDGE;
    if (caller.client !== null) {
      const moved = pool.moveFromGoneEditor(caller.client);
      if (moved !== undefined) log.info({ actor: caller.client.logName, from: moved.from, to: moved.to }, "client moved to another editor: its bridge is gone");
    }
    const away = pool.elsewhereFor(route, documentId, caller.editorId, caller.client !== null);
    if (away !== undefined) return { to: "remote", bridge: away.bridge, editor: away.editor };
    return pool.frontDoor ? FRONT_DOOR : LOCAL;
  };
}
