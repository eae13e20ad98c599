import { EDIT_FEATURE, HISTORY_FEATURE } from "../../protocol/control-names.js";
import { BATCH_FEATURE, BINARY_FEATURE, BRIDGE_SUBPROTOCOL, CANCEL_FEATURE, PROGRESS_FEATURE, PROTOCOL_VERSION } from "../../protocol/index.js";
import {
  BINARY_LAYOUT,
  closeCodes,
  CONTRACT_EVENTS,
  contractMethods,
  operationIdOf,
  WS_QUERY,
  type ContractEvent,
  type ContractInput,
  type ContractMethod,
} from "./catalog.js";
import { SchemaBank, type JsonSchema } from "./schemas.js";

/** An AsyncAPI 3.0 document, as plain JSON. */
export type AsyncApiDocument = Record<string, unknown> & {
  channels: Record<string, { address: string; messages: Record<string, unknown> } & Record<string, unknown>>;
  operations: Record<string, Record<string, unknown>>;
  components: { messages: Record<string, Record<string, unknown>>; schemas: Record<string, JsonSchema> } & Record<string, unknown>;
};

/** The address the document names when it is not served (the bridge's default listen address). */
export const DEFAULT_CONTRACT_HOST = "127.0.0.1:7700";

/** Message keys: `documentCurrent.request`, `event.selectionChanged`; component names allow letters, digits, `.-_`. */
export const requestKey = (method: string): string => `${operationIdOf(method)}.request`;
export const responseKey = (method: string): string => `${operationIdOf(method)}.response`;
export const eventKey = (type: string): string => `event.${operationIdOf(type)}`;
const FAILURE = "failure";
const BINARY_PART = "binaryPart";

const safeKey = (text: string): string => text.replace(/[^A-Za-z0-9._-]/g, "_");

function requestMessage(bank: SchemaBank, method: ContractMethod): Record<string, unknown> {
  const message: Record<string, unknown> = {
    name: method.name,
    title: `${method.name} request`,
    summary: method.description,
    payload: {
      type: "object",
      properties: {
        id: bank.ref("RequestId"),
        method: { type: "string", const: method.name },
        params: bank.of(method.params, "input"),
        progress: { type: "boolean", description: "Ask for `progress` events about this request." },
      },
      required: ["id", "method"],
    },
  };
  if (method.examples !== undefined && method.examples.length > 0) {
    message["examples"] = method.examples.map((params, n) => ({ payload: { id: String(n + 1), method: method.name, params } }));
  }
  return message;
}

function responseMessage(bank: SchemaBank, method: ContractMethod): Record<string, unknown> {
  return {
    name: `${method.name} response`,
    title: `${method.name} response`,
    summary: `The answer to a \`${method.name}\` request: \`ok: true\` and its result (a failure is the shared \`failure\` message).`,
    payload: {
      type: "object",
      properties: { id: bank.ref("RequestId"), ok: { type: "boolean", const: true }, result: bank.of(method.result, "output") },
      required: ["id", "ok", "result"],
    },
  };
}

function eventMessage(bank: SchemaBank, event: ContractEvent): Record<string, unknown> {
  const properties: Record<string, unknown> = { type: { type: "string", const: event.type }, data: bank.of(event.data, "output") };
  if (event.subscribed) properties["seq"] = { type: "integer", minimum: 0, description: "Per logical client; a resumed client receives what it missed." };
  return { name: event.type, title: `${event.type} event`, summary: event.description, payload: { type: "object", properties, required: ["type", "data"] } };
}

/** The key of a channel of `/ws` holding one group of built-in methods: `root.document` for `document:*`. */
export const methodChannel = (method: string): string => `root.${safeKey(method.includes(":") ? method.slice(0, method.indexOf(":")) : method)}`;
/** The channels of `/ws` holding the main events and the binary message. */
export const EVENTS_CHANNEL = "root.events";
export const BINARY_CHANNEL = "root.binary";
/** The channel of `/ws/{pluginId}`: the plugins' own methods and events. */
export const PLUGIN_CHANNEL = "plugin";

/**
 * The WebSocket side of the contract as AsyncAPI 3.0 (`GET /asyncapi.json`): the `/ws` endpoint as one channel per
 * group of methods (`root.document`, `root.layer`, …) plus `root.events` and `root.binary`, and `/ws/{pluginId}` as
 * `plugin` for the plugins' own methods and events; the query parameters and close codes, each method's request and
 * response, every event, and the binary message of `?binary=1` connections. `host` names the server.
 *
 * One channel per group, not one for the whole endpoint: an operation names its channel, and a reader that resolves
 * the document (as every AsyncAPI validator does) copies the channel, with every message it lists, into every
 * operation. With a single `/ws` channel of about 190 messages under 100 operations, `@asyncapi/parser` took 18–22 s
 * to validate the document on an idle core; with a channel per group, about 6 s.
 */
export function createAsyncApi(input: ContractInput, host: string = DEFAULT_CONTRACT_HOST): AsyncApiDocument {
  const bank = new SchemaBank("draft-07");
  const messages: Record<string, Record<string, unknown>> = {};
  const operations: Record<string, Record<string, unknown>> = {};
  const channelMessages = new Map<string, Record<string, unknown>>();
  const ref = (channel: string, key: string): Record<string, string> => ({ $ref: `#/channels/${channel}/messages/${key}` });
  /** Lists the component message `key` in `channel`, and answers the operation's reference to it there. */
  const listed = (channel: string, key: string): Record<string, string> => {
    let listing = channelMessages.get(channel);
    if (listing === undefined) {
      listing = {};
      channelMessages.set(channel, listing);
    }
    listing[key] = { $ref: `#/components/messages/${key}` };
    return ref(channel, key);
  };

  messages[FAILURE] = {
    name: "failure",
    title: "Failed response",
    summary: "The answer to any request that failed: `ok: false` and a ProtocolError (`requestId` carries the id as text).",
    payload: { type: "object", properties: { id: bank.ref("RequestId"), ok: { type: "boolean", const: false }, error: bank.ref("ProtocolError") }, required: ["id", "ok", "error"] },
  };
  for (const method of contractMethods(input)) {
    const channel = methodChannel(method.name);
    messages[requestKey(method.name)] = requestMessage(bank, method);
    messages[responseKey(method.name)] = responseMessage(bank, method);
    operations[operationIdOf(method.name)] = {
      action: "receive",
      channel: { $ref: `#/channels/${channel}` },
      title: method.name,
      summary: method.description,
      messages: [listed(channel, requestKey(method.name))],
      reply: { channel: { $ref: `#/channels/${channel}` }, messages: [listed(channel, responseKey(method.name)), listed(channel, FAILURE)] },
    };
  }
  for (const event of CONTRACT_EVENTS) {
    messages[eventKey(event.type)] = eventMessage(bank, event);
    operations[`send.${operationIdOf(event.type)}`] = {
      action: "send",
      channel: { $ref: `#/channels/${EVENTS_CHANNEL}` },
      title: event.type,
      summary: event.description,
      messages: [listed(EVENTS_CHANNEL, eventKey(event.type))],
    };
  }
  messages[BINARY_PART] = {
    name: BINARY_PART,
    title: "Binary part",
    summary: "An image's bytes, after the JSON message that names it.",
    description: BINARY_LAYOUT,
    contentType: "application/octet-stream",
    payload: { type: "string", format: "binary" },
  };
  const binary = { $ref: `#/channels/${BINARY_CHANNEL}` };
  operations["send.binaryPart"] = { action: "send", channel: binary, title: "binary image result", summary: "The bytes of an image result.", messages: [listed(BINARY_CHANNEL, BINARY_PART)] };
  operations["receive.binaryPart"] = { action: "receive", channel: binary, title: "binary import", summary: "The bytes of an image a request imports.", messages: [ref(BINARY_CHANNEL, BINARY_PART)] };

  const plugins = input.plugins ?? [];
  const plugin = { $ref: `#/channels/${PLUGIN_CHANNEL}` };
  listed(PLUGIN_CHANNEL, FAILURE);
  for (const loaded of plugins) {
    for (const method of loaded.methods ?? []) {
      const key = safeKey(`plugin.${loaded.id}.${operationIdOf(method.name)}`);
      const description = method.description ?? `A method of the plugin \`${loaded.id}\`; it validates its own params.`;
      messages[`${key}.request`] = { name: method.name, title: `${method.name} request`, summary: description, payload: { type: "object", properties: { id: bank.ref("RequestId"), method: { type: "string", const: method.name }, params: {} }, required: ["id", "method"] } };
      messages[`${key}.response`] = { name: `${method.name} response`, title: `${method.name} response`, summary: `The answer to a \`${method.name}\` request.`, payload: { type: "object", properties: { id: bank.ref("RequestId"), ok: { type: "boolean", const: true }, result: {} }, required: ["id", "ok", "result"] } };
      operations[key] = {
        action: "receive",
        channel: plugin,
        title: method.name,
        summary: description,
        messages: [listed(PLUGIN_CHANNEL, `${key}.request`)],
        reply: { channel: plugin, messages: [listed(PLUGIN_CHANNEL, `${key}.response`), ref(PLUGIN_CHANNEL, FAILURE)] },
        "x-plugin": loaded.id,
      };
    }
    for (const type of loaded.events ?? []) {
      const key = safeKey(`plugin.${loaded.id}.event.${operationIdOf(type)}`);
      messages[key] = { name: type, title: `${type} event`, summary: `An event of the plugin \`${loaded.id}\`.`, payload: { type: "object", properties: { type: { type: "string", const: type }, seq: { type: "integer" }, data: {} }, required: ["type", "data"] } };
      operations[key] = { action: "send", channel: plugin, title: type, messages: [listed(PLUGIN_CHANNEL, key)], "x-plugin": loaded.id };
    }
  }

  const codes = closeCodes();
  const wsBindings = {
    ws: {
      method: "GET",
      query: { type: "object", properties: Object.fromEntries(WS_QUERY.map((q) => [q.name, q.type === "boolean" ? { type: "string", enum: ["0", "1"], description: q.description } : { type: "string", description: q.description }])) },
      bindingVersion: "0.1.0",
    },
  };
  const pluginParameter: Record<string, unknown> = { description: "The id of a loaded plugin." };
  if (plugins.length > 0) pluginParameter["enum"] = plugins.map((p) => p.id);
  const channel = (key: string, listing: Record<string, unknown>): AsyncApiDocument["channels"][string] => {
    const shared = { messages: listing, bindings: { $ref: "#/components/channelBindings/ws" } };
    if (key === PLUGIN_CHANNEL) {
      const description = "A plugin's endpoint: its own methods (found first) and events. The built-in methods and the main events are answered here too, as on `/ws`.";
      return { address: "/ws/{pluginId}", title: "Plugin endpoint", description, parameters: { pluginId: pluginParameter }, ...shared };
    }
    if (key === EVENTS_CHANNEL) return { address: "/ws", title: "Events", description: "The main events, sent on `/ws` to the clients that subscribed.", ...shared };
    if (key === BINARY_CHANNEL) return { address: "/ws", title: "Binary messages", description: "Image bytes on connections opened with `?binary=1`.", ...shared };
    const group = key.slice("root.".length);
    return { address: "/ws", title: `${group} methods`, description: `The built-in \`${group}:*\` methods on \`/ws\`.`, ...shared };
  };
  return {
    asyncapi: "3.0.0",
    info: {
      title: `${input.server.name} WebSocket API`,
      version: input.server.version,
      description:
        `Protocol ${PROTOCOL_VERSION}.1 over WebSocket: a request \`{id, method, params?, progress?}\` is answered by a response \`{id, ok: true, result}\` or \`{id, ok: false, error}\`; events \`{type, seq, data}\` go to clients that subscribed. ` +
        `The first frame on every socket is \`connected\`. Offer the subprotocol \`${BRIDGE_SUBPROTOCOL}\`, and \`bearer.<token>\` when the bridge has a token and the client cannot set headers. ` +
        `The endpoint \`/ws\` is listed as one channel per group of methods, plus its events and binary messages; \`/ws/{pluginId}\` is a plugin's. The close codes are in \`x-close-codes\`.`,
    },
    defaultContentType: "application/json",
    servers: {
      bridge: {
        host,
        protocol: "ws",
        description: "The bridge; the same port serves HTTP.",
        security: [{ $ref: "#/components/securitySchemes/bearer" }],
      },
    },
    channels: Object.fromEntries([...channelMessages].map(([key, listing]) => [key, channel(key, listing)])),
    operations,
    components: {
      schemas: bank.components,
      messages,
      channelBindings: { ws: wsBindings },
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "The access token as `Authorization: Bearer <token>`, or as the WebSocket subprotocol `bearer.<token>` (browsers cannot set headers).",
        },
      },
    },
    "x-close-codes": codes,
    "x-features": [BINARY_FEATURE, CANCEL_FEATURE, PROGRESS_FEATURE, BATCH_FEATURE, EDIT_FEATURE, HISTORY_FEATURE],
  };
}
