export { createAsyncApi, DEFAULT_CONTRACT_HOST, type AsyncApiDocument } from "./asyncapi.js";
export type { ContractInput, PluginContract } from "./catalog.js";
export { createOpenApi, type OpenApiDocument } from "./openapi.js";
export { renderReferenceHtml, renderReferenceMarkdown } from "./reference.js";
export { publishContract, referenceMarkdown, type PublishedContract } from "./published.js";
export { pythonClientModule } from "./python.js";
