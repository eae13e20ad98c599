import type { z } from "zod";
import {
  BATCH_METHOD,
  BatchParamsSchema,
  BatchResultSchema,
  CANCEL_METHOD,
  CLOSE_CODES,
  CONNECTION_EVENTS,
  ConnectedEventDataSchema,
  DOCUMENT_CHANGED_EVENT,
  HISTORY_CHANGED_EVENT,
  HistoryChangedEventDataSchema,
  DocumentChangedEventDataSchema,
  EDITOR_CHANGED_EVENT,
  EditorChangedEventDataSchema,
  EditorRestartedEventDataSchema,
  ErrorEventDataSchema,
  EVENT_DESCRIPTIONS,
  EVENT_SCHEMAS,
  MAX_CLIENT_NAME_LENGTH,
  PROGRESS_EVENT,
  ProgressEventDataSchema,
  RequestCancelParamsSchema,
  RequestCancelResultSchema,
} from "../../protocol/index.js";
import type { HttpBinding, MethodDefinition } from "../define.js";

/*
 * What the published contract is made of, gathered in one place: the method table, the two methods the dispatcher
 * serves itself, the events, the WebSocket's query and close codes, and the loaded plugins. The OpenAPI and
 * AsyncAPI documents are both rendered from this.
 */

/** A plugin as the contract shows it: its endpoint, and the methods, routes and events it registered, when known. */
export interface PluginContract {
  readonly id: string;
  readonly methods?: readonly { readonly name: string; readonly description?: string }[];
  /** Routes below `/plugins/{id}`, with `:name` segments. */
  readonly routes?: readonly { readonly verb: string; readonly path: string; readonly description?: string }[];
  /** Plugin-local event types. */
  readonly events?: readonly string[];
}

/** What the contract is generated from. */
export interface ContractInput {
  /** The method table the bridge serves (a list: each document reads it). */
  readonly methods: readonly MethodDefinition[];
  readonly server: { readonly name: string; readonly version: string };
  /** Loaded plugins. @default none */
  readonly plugins?: readonly PluginContract[];
}

/** One callable method of the contract: from the table, or served by the dispatcher. */
export interface ContractMethod {
  readonly name: string;
  readonly description: string;
  readonly params: z.ZodType;
  readonly result: z.ZodType;
  readonly http?: HttpBinding | undefined;
  readonly examples?: readonly Record<string, unknown>[] | undefined;
  /** Runs in an editor (may answer the editor's errors); false for methods the bridge answers itself. */
  readonly host: boolean;
}

/** Served by the dispatcher rather than the method table: they act on other requests. */
const DISPATCHER_METHODS: readonly ContractMethod[] = [
  {
    name: CANCEL_METHOD,
    description:
      "Cancels one of this connection's own requests by its id: a queued call never runs, a running one answers `CANCELLED` at once and its editor is told to stop. WebSocket only.",
    params: RequestCancelParamsSchema,
    result: RequestCancelResultSchema,
    examples: [{ id: "7" }],
    host: false,
  },
  {
    name: BATCH_METHOD,
    description:
      "Runs several calls in order, each after the previous one answered, and answers them in one response: one entry per call, its result or its error. `haltOnFailure` stops at the first failure.",
    params: BatchParamsSchema,
    result: BatchResultSchema,
    http: { verb: "POST", path: "/batch" },
    examples: [{ requests: [{ id: "a", method: "document:current" }, { id: "b", method: "selection:getArea" }], haltOnFailure: true }],
    host: false,
  },
];

/** Every method of the contract, in table order, the dispatcher's own last. */
export function contractMethods(input: ContractInput): ContractMethod[] {
  const out: ContractMethod[] = [];
  for (const method of input.methods) {
    out.push({
      name: method.name,
      description: method.description ?? "",
      params: method.params,
      result: method.result,
      http: method.http,
      examples: method.examples,
      host: method.host,
    });
  }
  return [...out, ...DISPATCHER_METHODS];
}

/** The operation id of a method: its name in camel case (`document:current` → `documentCurrent`). */
export function operationIdOf(method: string): string {
  return method.replace(/[:\-_/#]+(\w)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase());
}

/** One event of the contract: its type, what it says, its data's schema. */
export interface ContractEvent {
  readonly type: string;
  readonly description: string;
  readonly data: z.ZodType;
  /** Sent to subscribers (carries `seq`) or to every connection without subscription (the connection events). */
  readonly subscribed: boolean;
}

/** The main events, the editor and control events, and the two connection events. */
export const CONTRACT_EVENTS: readonly ContractEvent[] = [
  ...Object.entries(EVENT_SCHEMAS).map(([type, data]) => ({
    type,
    description: EVENT_DESCRIPTIONS[type as keyof typeof EVENT_DESCRIPTIONS],
    data: data as z.ZodType,
    subscribed: true,
  })),
  {
    type: "editor:restarted",
    description:
      "An editor was lost (it crashed, ran out of memory, or its thread stayed stuck past a call's deadline) and a fresh one took its place. Documents reopened from their recovery copies keep their ids (`recoveredDocumentIds`); the others are gone (`lostDocumentIds`), and a `closedDocument` event for each came first. `documents` says per document what was lost: `document`, `changes` made since its last recovery copy, or its `selection`. Editors send other events of their own under their own names (for example `documentChanged` on the embedded editor).",
    data: EditorRestartedEventDataSchema,
    subscribed: true,
  },
  {
    type: DOCUMENT_CHANGED_EVENT,
    description:
      "A document changed: after every edit (`layer:update`, `document:resize`, `selection:invert`…) on every editor, with the document's `revision` after it and the edit's `method`; also for changes made otherwise (a script, an import, a person at the editor), where the editor reports them, with fields of its own.",
    data: DocumentChangedEventDataSchema,
    subscribed: true,
  },
  {
    type: HISTORY_CHANGED_EVENT,
    description:
      "A document's history moved: an edit by any client added a step, or a client undid, redid or went to a step (`history:undo`, `history:redo`, `history:go`), or an atomic batch ended. `current` is the step the document is at, `length` the steps kept. Sent by editors with a history (see `getServerInfo` `editors[].history`).",
    data: HistoryChangedEventDataSchema,
    subscribed: true,
  },
  {
    type: EDITOR_CHANGED_EVENT,
    description:
      "In a cluster of bridges: the editor this client worked with is gone with its bridge, so the client was moved to another (`to`, chosen as for a new client) on its next call, which runs there. Sent whether or not the client subscribed, and replayed when it resumes.",
    data: EditorChangedEventDataSchema,
    subscribed: false,
  },
  {
    type: PROGRESS_EVENT,
    description:
      "How far a request that carried `progress: true` has come; sent only to the connection that made it, and never after its answer. `progress` never decreases; without `total` it is a fraction of 1.",
    data: ProgressEventDataSchema,
    subscribed: false,
  },
  {
    type: CONNECTION_EVENTS.connected,
    description:
      "The first frame on every accepted socket: the logical client's id (a bearer secret: send it back with `?resume=`), whether it resumed, how many events were replayed or lost, and the features this connection negotiated.",
    data: ConnectedEventDataSchema,
    subscribed: false,
  },
  {
    type: CONNECTION_EVENTS.error,
    description:
      "A frame that could not be answered (not JSON, no readable id, a binary message no request waits for), or a connection refused after the upgrade.",
    data: ErrorEventDataSchema,
    subscribed: false,
  },
];

/** Why each close code is sent. */
export const CLOSE_CODE_DESCRIPTIONS: Readonly<Record<keyof typeof CLOSE_CODES, string>> = {
  DISPOSE: "Sent by a client: dispose my logical client now instead of keeping it for resume.",
  PLUGIN_UNAVAILABLE: "The plugin endpoint does not exist or failed to load.",
  SLOW_CONSUMER: "The socket fell too far behind; the logical client stays resumable.",
  TAKEN_OVER: "Another socket resumed this logical client.",
  DISCONNECTED: "An operator closed the socket (`server:disconnectClient`); the logical client stays resumable.",
  CLIENT_ATTACHED: "`?resume=<id>&takeover=0` named a client another socket holds; that socket was left alone.",
  EVICTED: "An operator disposed the logical client (`server:disconnectClient` with `evict`); a reconnect starts a new client.",
  GOING_AWAY: "The bridge is shutting down.",
  INVALID_DATA: "Too many frames that were not JSON.",
  POLICY_VIOLATION: "The client kept sending frames past its rate after being answered TOO_MANY_REQUESTS; the logical client stays resumable.",
  MESSAGE_TOO_BIG: "A text message over maxTextFrameBytes (answered first with a PAYLOAD_TOO_LARGE error event naming binary parts), or any message over maxPayloadBytes; the logical client stays resumable.",
  INTERNAL: "A hook failed while accepting the connection.",
};

/** The close codes as the contract lists them: code, name, why. */
export function closeCodes(): Array<{ code: number; name: string; description: string }> {
  return Object.entries(CLOSE_CODES).map(([name, code]) => ({
    code,
    name,
    description: CLOSE_CODE_DESCRIPTIONS[name as keyof typeof CLOSE_CODES],
  }));
}

/** Query parameters of the WebSocket upgrade. */
export const WS_QUERY: ReadonlyArray<{ readonly name: string; readonly type: "string" | "boolean"; readonly description: string }> = [
  { name: "resume", type: "string", description: "The `clientId` of a previous `connected` event: keep its subscriptions and receive the events missed since (within the resume TTL)." },
  { name: "takeover", type: "boolean", description: "`0` refuses the resume with `CLIENT_ATTACHED` (close 4409) while another socket holds the client, instead of taking it over (the default)." },
  { name: "name", type: "string", description: `A display name for this client, at most ${MAX_CLIENT_NAME_LENGTH} printable characters, shown by \`server:clients\` and the logs.` },
  { name: "binary", type: "boolean", description: "`1` negotiates the `binary` feature: image results and imports travel as binary messages instead of base64." },
  { name: "editor", type: "string", description: "The editor (`<kind>-<n>`) this client's calls go to when they name no document, on a bridge with several editors." },
];

/** The layout of a binary message, as the contract describes it. */
export const BINARY_LAYOUT =
  "On a connection opened with `?binary=1`: an image result's bytes right after its JSON response (which names them `{binary: n, mime, bytes}` in place of the data URI), or an import's bytes right after the JSON request naming `{binary: n}`. " +
  "A result that holds several images (`template:render` without `output.path`: each `variants[i].image`) names them parts 0, 1, … in the order the JSON text lists them, and their binary messages follow the response in that order, nothing else between; a resumed client is replayed the response with all its parts or none of it. " +
  "HTTP, a connection without `binary`, and an entry of a `batch` carry data URIs instead, as does an answer with more images than binary parts can number (256). " +
  "Layout: byte 0 is the header version (1); byte 1 is n, the part index; bytes 2–3 are L, the length of the request id in bytes (unsigned, big-endian); bytes 4 to 4+L are the request id in UTF-8 (a numeric id as its digits); the rest is the payload. " +
  "Text messages carry JSON only and are limited to `maxTextFrameBytes` (4 MiB by default), far below binary ones (`maxPayloadBytes`, 96 MiB). This is a change: text messages used to be accepted up to `maxPayloadBytes`, and a big import inline as base64. " +
  "A larger text message is refused from its header, before it is read: `PAYLOAD_TOO_LARGE` as the answer on its request id when the message starts with `{\"id\":…` (as the SDK writes requests), else as an `error` event (`details: { limit: \"maxTextFrameBytes\", bytes, maxBytes, use: \"binary parts\" }`), then close 1009. " +
  "An image bigger than that must go as a binary part: the SDK sends `layer:importImage`'s image as one by itself, whether given as bytes or as a data URI or base64 longer than 64 KiB.";
