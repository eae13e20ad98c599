import { createAsyncApi, DEFAULT_CONTRACT_HOST, type AsyncApiDocument } from "./asyncapi.js";
import type { ContractInput } from "./catalog.js";
import { createOpenApi, type OpenApiDocument } from "./openapi.js";
import { renderReferenceHtml, renderReferenceMarkdown } from "./reference.js";

/** The contract as a bridge serves it: each document made on first use and kept (the method table never changes). */
export interface PublishedContract {
  /** `GET /openapi.json`. */
  openapi(): string;
  /** `GET /asyncapi.json`, its server named by the `Host` the client used to reach the bridge. */
  asyncapi(host: string | undefined): string;
  /** `GET /docs`. */
  html(): string;
}

/**
 * Serves the contract of a bridge. `input` is read on first use, after plugins have loaded, so their endpoints and
 * routes are in it.
 */
export function publishContract(input: () => ContractInput): PublishedContract {
  let openapi: OpenApiDocument | undefined;
  let asyncapi: AsyncApiDocument | undefined;
  let openapiText: string | undefined;
  let html: string | undefined;
  const documents = (): { openapi: OpenApiDocument; asyncapi: AsyncApiDocument } => {
    if (openapi === undefined || asyncapi === undefined) {
      const contract = input();
      openapi = createOpenApi(contract);
      asyncapi = createAsyncApi(contract);
    }
    return { openapi, asyncapi };
  };
  return {
    openapi: () => (openapiText ??= JSON.stringify(documents().openapi)),
    asyncapi: (host) => {
      const document = documents().asyncapi;
      const servers = document["servers"] as Record<string, Record<string, unknown>>;
      // The Host header passed the bridge's Host or token check before any route ran.
      return JSON.stringify({ ...document, servers: { bridge: { ...servers["bridge"], host: host ?? DEFAULT_CONTRACT_HOST } } });
    },
    html: () => (html ??= renderReferenceHtml(documents().openapi, documents().asyncapi)),
  };
}

/** The API reference as Markdown (docs/api.md, written at build time by scripts/gen-api-docs.mjs). */
export function referenceMarkdown(input: ContractInput): string {
  return renderReferenceMarkdown(createOpenApi(input), createAsyncApi(input));
}
