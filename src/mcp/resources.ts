import { BridgeError } from "../protocol/index.js";
import type { McpBackend, McpCallResult } from "./backend.js";

/** The scheme of the server's resources. */
export const RESOURCE_SCHEME = "image-editor-bridge";
const DOCUMENT_URI = /^image-editor-bridge:\/\/documents\/(\d+)$/;
const PREVIEW_URI = /^image-editor-bridge:\/\/documents\/(\d+)\/layers\/(\d+)\/preview$/;

export const documentUri = (id: number): string => `${RESOURCE_SCHEME}://documents/${id}`;
export const previewUri = (id: number, layerId: number): string => `${RESOURCE_SCHEME}://documents/${id}/layers/${layerId}/preview`;

export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: `${RESOURCE_SCHEME}://documents/{id}`,
    name: "document",
    title: "Document",
    description: "A document's info (name, size, resolution, active layers) and its layer tree, as JSON.",
    mimeType: "application/json",
  },
  {
    uriTemplate: `${RESOURCE_SCHEME}://documents/{id}/layers/{layerId}/preview`,
    name: "layer-preview",
    title: "Layer preview",
    description: "A small PNG preview of one layer.",
    mimeType: "image/png",
  },
] as const;

/**
 * The main events after which a subscribed resource may have changed: the editor reports changes of its active
 * document (selection, active layer pixels, which layers are active) without naming every resource they touch, so
 * each one signals every subscribed resource and the client reads again.
 */
export const RESOURCE_EVENTS: readonly string[] = ["selection:changed", "layer:previewChange", "layer:selectionChange"];

async function run(backend: McpBackend, name: string, params: Record<string, unknown>): Promise<McpCallResult> {
  const method = backend.methods().find((m) => m.name === name && m.pluginId === undefined);
  if (method === undefined) throw new BridgeError("NOT_SUPPORTED", `This bridge has no ${name} method`);
  return backend.call(method, params);
}

const json = (answer: McpCallResult): unknown => (answer.kind === "json" ? answer.value : null);

/** `resources/list`: every open document. */
export async function listResources(backend: McpBackend): Promise<Array<{ uri: string; name: string; title: string; mimeType: string; description: string }>> {
  const documents = json(await run(backend, "document:list", {})) as Array<{ id: number; name: string; width: number; height: number }>;
  return documents.map((doc) => ({
    uri: documentUri(doc.id),
    name: doc.name,
    title: doc.name,
    mimeType: "application/json",
    description: `${doc.width}×${doc.height} document with its layer tree`,
  }));
}

type ResourceContents = { uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string };

/** `resources/read` of a document or a layer preview; a URI of neither shape is a `NOT_FOUND`. */
export async function readResource(backend: McpBackend, uri: string): Promise<ResourceContents> {
  const doc = DOCUMENT_URI.exec(uri);
  if (doc !== null) {
    const documentId = Number(doc[1]);
    const documents = json(await run(backend, "document:list", {})) as Array<{ id: number }>;
    const document = documents.find((d) => d.id === documentId);
    if (document === undefined) throw new BridgeError("DOCUMENT_NOT_FOUND", `No open document has id ${documentId}`, { details: { documentId } });
    const layers = json(await run(backend, "document:layers", { documentId }));
    return { uri, mimeType: "application/json", text: JSON.stringify({ document, layers }) };
  }
  const preview = PREVIEW_URI.exec(uri);
  if (preview !== null) {
    const answer = await run(backend, "image:getPreview", { documentId: Number(preview[1]), layerSpec: Number(preview[2]) });
    if (answer.kind !== "image") throw new BridgeError("INTERNAL", "The preview did not answer an image");
    const { bytes } = answer.image;
    return { uri, mimeType: "image/png", blob: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64") };
  }
  throw new BridgeError("NOT_FOUND", `No resource "${uri}": documents are ${RESOURCE_SCHEME}://documents/{id}, previews …/layers/{layerId}/preview`, { details: { uri } });
}
