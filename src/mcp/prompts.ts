/** The prompts the server offers: short recipes naming the tools that carry them out. */
export interface McpPrompt {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly arguments: ReadonlyArray<{ readonly name: string; readonly description: string; readonly required: boolean }>;
  text(args: Readonly<Record<string, string | undefined>>): string;
}

const documentArg = { name: "documentId", description: "The document's id (document_list names them); the active document when left out.", required: false };
const which = (args: Readonly<Record<string, string | undefined>>): string => (args["documentId"] ? `the document with id ${args["documentId"]}` : "the active document");

export const PROMPTS: readonly McpPrompt[] = [
  {
    name: "describe_document_layers",
    title: "Describe the layers of a document",
    description: "Lists a document's layers and describes what each holds.",
    arguments: [documentArg],
    text: (args) =>
      `Describe ${which(args)} in the image editor. Call document_layers${args["documentId"] ? ` with documentId ${args["documentId"]}` : ""} for its layer tree, ` +
      "then for each visible layer call image_getPreview with its id as layerSpec and say in one line what it shows, its size and its position. " +
      "End with one sentence about the composition as a whole.",
  },
  {
    name: "prepare_product_shot",
    title: "Prepare a product shot",
    description: "Removes the background of a product photo and exports a 1024 px PNG.",
    arguments: [documentArg, { name: "path", description: "Where to write the PNG (inside the bridge's files roots).", required: true }],
    text: (args) =>
      `Prepare ${which(args)} as a product shot. Call action_removeBackground on its product layer (the active one unless another is clearly the product), ` +
      `check the result with image_getPreview, then call document_export with format "png" and path "${args["path"] ?? "product.png"}" so that the longest edge is 1024 px ` +
      "(compute the scale from document_current's width and height). Report the file written and its size.",
  },
];
