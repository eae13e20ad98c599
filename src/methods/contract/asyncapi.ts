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

/**
 * The WebSocket side of the contract as AsyncAPI 3.0 (`GET /asyncapi.json`): the `/ws` and `/ws/{pluginId}`
 * channels with their query parameters and close codes, the `connected` handshake, each method's request and
 * response, every event, and the binary message of `?binary=1` connections. `host` names the server.
 */
export function createAsyncApi(input: ContractInput, host: string = DEFAULT_CONTRACT_HOST): AsyncApiDocument {
  const bank = new SchemaBank("draft-07");
  const messages: Record<string, Record<string, unknown>> = {};
  const operations: Record<string, Record<string, unknown>> = {};
  const rootMessages: Record<string, unknown> = {};
  const pluginMessages: Record<string, unknown> = {};
  const ref = (channel: string, key: string): Record<string, string> => ({ $ref: `#/channels/${channel}/messages/${key}` });
  const add = (key: string, message: Record<string, unknown>, channels: Array<Record<string, unknown>> = [rootMessages, pluginMessages]): void => {
    messages[key] = message;
    for (const channel of channels) channel[key] = { $ref: `#/components/messages/${key}` };
  };

  add(FAILURE, {
    name: "failure",
    title: "Failed response",
    summary: "The answer to any request that failed: `ok: false` and a ProtocolError (`requestId` carries the id as text).",
    payload: { type: "object", properties: { id: bank.ref("RequestId"), ok: { type: "boolean", const: false }, error: bank.ref("ProtocolError") }, required: ["id", "ok", "error"] },
  });
  for (const method of contractMethods(input)) {
    const id = operationIdOf(method.name);
    add(requestKey(method.name), requestMessage(bank, method));
    add(responseKey(method.name), responseMessage(bank, method));
    operations[id] = {
      action: "receive",
      channel: { $ref: "#/channels/root" },
      title: method.name,
      summary: method.description,
      messages: [ref("root", requestKey(method.name))],
      reply: { channel: { $ref: "#/channels/root" }, messages: [ref("root", responseKey(method.name)), ref("root", FAILURE)] },
    };
  }
  for (const event of CONTRACT_EVENTS) {
    add(eventKey(event.type), eventMessage(bank, event));
    operations[`send.${operationIdOf(event.type)}`] = {
      action: "send",
      channel: { $ref: "#/channels/root" },
      title: event.type,
      summary: event.description,
      messages: [ref("root", eventKey(event.type))],
    };
  }
  add(BINARY_PART, {
    name: BINARY_PART,
    title: "Binary part",
    summary: "An image's bytes, after the JSON message that names it.",
    description: BINARY_LAYOUT,
    contentType: "application/octet-stream",
    payload: { type: "string", format: "binary" },
  });
  operations["send.binaryPart"] = { action: "send", channel: { $ref: "#/channels/root" }, title: "binary image result", summary: "The bytes of an image result.", messages: [ref("root", BINARY_PART)] };
  operations["receive.binaryPart"] = { action: "receive", channel: { $ref: "#/channels/root" }, title: "binary import", summary: "The bytes of an image a request imports.", messages: [ref("root", BINARY_PART)] };

  const plugins = input.plugins ?? [];
  for (const plugin of plugins) {
    for (const method of plugin.methods ?? []) {
      const key = safeKey(`plugin.${plugin.id}.${operationIdOf(method.name)}`);
      const description = method.description ?? `A method of the plugin \`${plugin.id}\`; it validates its own params.`;
      add(`${key}.request`, { name: method.name, title: `${method.name} request`, summary: description, payload: { type: "object", properties: { id: bank.ref("RequestId"), method: { type: "string", const: method.name }, params: {} }, required: ["id", "method"] } }, [pluginMessages]);
      add(`${key}.response`, { name: `${method.name} response`, title: `${method.name} response`, summary: `The answer to a \`${method.name}\` request.`, payload: { type: "object", properties: { id: bank.ref("RequestId"), ok: { type: "boolean", const: true }, result: {} }, required: ["id", "ok", "result"] } }, [pluginMessages]);
      operations[key] = {
        action: "receive",
        channel: { $ref: "#/channels/plugin" },
        title: method.name,
        summary: description,
        messages: [ref("plugin", `${key}.request`)],
        reply: { channel: { $ref: "#/channels/plugin" }, messages: [ref("plugin", `${key}.response`), ref("plugin", FAILURE)] },
        "x-plugin": plugin.id,
      };
    }
    for (const type of plugin.events ?? []) {
      const key = safeKey(`plugin.${plugin.id}.event.${operationIdOf(type)}`);
      add(key, { name: type, title: `${type} event`, summary: `An event of the plugin \`${plugin.id}\`.`, payload: { type: "object", properties: { type: { type: "string", const: type }, seq: { type: "integer" }, data: {} }, required: ["type", "data"] } }, [pluginMessages]);
      operations[key] = { action: "send", channel: { $ref: "#/channels/plugin" }, title: type, messages: [ref("plugin", key)], "x-plugin": plugin.id };
    }
  }

  const codes = closeCodes();
  const wsBinding = {
    ws: {
      method: "GET",
      query: { type: "object", properties: Object.fromEntries(WS_QUERY.map((q) => [q.name, q.type === "boolean" ? { type: "string", enum: ["0", "1"], description: q.description } : { type: "string", description: q.description }])) },
      bindingVersion: "0.1.0",
    },
  };
  const closeText = `Close codes: ${codes.map((c) => `${c.code} ${c.name} (${c.description})`).join("; ")}`;
  const pluginParameter: Record<string, unknown> = { description: "The id of a loaded plugin." };
  if (plugins.length > 0) pluginParameter["enum"] = plugins.map((p) => p.id);
  return {
    asyncapi: "3.0.0",
    info: {
      title: `${input.server.name} WebSocket API`,
      version: input.server.version,
      description:
        `Protocol ${PROTOCOL_VERSION}.1 over WebSocket: a request \`{id, method, params?, progress?}\` is answered by a response \`{id, ok: true, result}\` or \`{id, ok: false, error}\`; events \`{type, seq, data}\` go to clients that subscribed. ` +
        `The first frame on every socket is \`connected\`. Offer the subprotocol \`${BRIDGE_SUBPROTOCOL}\`, and \`bearer.<token>\` when the bridge has a token and the client cannot set headers.`,
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
    channels: {
      root: {
        address: "/ws",
        title: "Root endpoint",
        description: `Every built-in method and the main events. ${closeText}.`,
        messages: rootMessages,
        bindings: wsBinding,
        "x-close-codes": codes,
      },
      plugin: {
        address: "/ws/{pluginId}",
        title: "Plugin endpoint",
        description: `The built-in methods and main events, plus the plugin's own methods (found first) and events. ${closeText}.`,
        parameters: { pluginId: pluginParameter },
        messages: pluginMessages,
        bindings: wsBinding,
        "x-close-codes": codes,
      },
    },
    operations,
    components: {
      schemas: bank.components,
      messages,
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "The access token as `Authorization: Bearer <token>`, or as the WebSocket subprotocol `bearer.<token>` (browsers cannot set headers).",
        },
      },
    },
    "x-features": [BINARY_FEATURE, CANCEL_FEATURE, PROGRESS_FEATURE, BATCH_FEATURE, EDIT_FEATURE, HISTORY_FEATURE],
  };
}
