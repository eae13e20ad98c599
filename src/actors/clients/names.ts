/*
 * How a logical client is named in lists, logs and metrics: never by its whole id, since ids are bearer secrets.
 */

/** Characters of a client id that lists, logs and metrics show: enough to tell clients apart, far too few to resume. */
export const CLIENT_ID_PREFIX_LENGTH = 8;

/** Server-issued ids are random UUIDs; any other mailbox lane (`http:…`, `plugin:…`) is not a client id. */
const CLIENT_ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The part of a client id that may be shown: ids are bearer secrets (whoever holds one can resume that client),
 * so lists and logs name a client by this prefix, which never resolves on resume.
 */
export function clientIdPrefix(id: string): string {
  return id.slice(0, CLIENT_ID_PREFIX_LENGTH);
}

/** How logs name a logical client: `client:<prefix>`. */
export function clientLogName(id: string): string {
  return `client:${clientIdPrefix(id)}`;
}

/** Whether a mailbox lane is a logical client's id (a bearer secret) rather than `http:…`, `plugin:…` and so on. */
export function isClientIdLane(lane: string): boolean {
  return CLIENT_ID_SHAPE.test(lane);
}

/** How logs name a mailbox lane: a client id becomes `client:<prefix>`; other lanes are not secret and stay. */
export function laneLogName(lane: string): string {
  return CLIENT_ID_SHAPE.test(lane) ? clientLogName(lane) : lane;
}
