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
  {
    name: "fill_template",
    title: "Fill a template from a table",
    description: "Renders one file per row of a table from a layered template (text, photos, badges, layer comps) with template_render.",
    arguments: [
      { name: "template", description: "The template's path (a PSD inside the bridge's files roots).", required: true },
      { name: "rows", description: "The table: a CSV's text, or where it is and what its columns mean.", required: true },
      { name: "output", description: "The output file name pattern, e.g. out/{id}.png (inside the files roots).", required: false },
    ],
    text: (args) => {
      const output = args["output"] ?? "out/{id}.png";
      return (
        `Fill the template ${args["template"] ?? "(ask the user for its path)"} once per row of this table and write each result to ${output}.\n\nThe table:\n${args["rows"] ?? "(ask the user for it)"}\n\n` +
        "1. Learn the template: call document_open with its path, then document_layers (the layer names, which are text layers, which is a smart object or pixel layer " +
        "that takes a photo) and document_layerComps (the comps by name), then document_close it. Variants address layers by name: a name the template lacks, " +
        "or holds twice, fails that row.\n" +
        "2. Map each column to a part of a variant: a new text by layer name (text), a photo path or URL by layer name (images; it takes the placeholder's " +
        "frame), a layer shown or hidden (visible, true or false), a layer comp (comp), a solid fill colour (fills), and the values the output pattern names " +
        "(vars; {id} is the variant's id). Say which column went where and ask when a column matches no layer.\n" +
        `3. Call template_render with template {path}, the first row alone as its one variant, and output {path: "${output}"}; look at the file it wrote ` +
        "(document_open it, image_getPreview, document_close) and fix the mapping if it is wrong.\n" +
        "4. Call template_render with every row (comps that leave part of the canvas empty: add edits [{method: \"document:trim\"}] to each variant). " +
        "The answer lists each row: ok with its path, or its error. Rows fail alone; do not retry a row whose error names a missing layer without fixing its " +
        "column. The template file is never written.\n" +
        "5. Report how many files were written, where, and each failed row with its error."
      );
    },
  },
];
