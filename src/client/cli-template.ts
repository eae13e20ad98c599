import { readFile } from "node:fs/promises";
import { extname, resolve } from "node:path";
import { UsageError } from "./cli-params.js";
import type { InvokeOptions } from "./types.js";

/*
 * `render-template`: rows of a CSV or JSON file turned into `template:render` variants, one call, with a progress
 * bar on a terminal and a summary. Columns: `id`, `text:<layer>`, `image:<layer>`, `visible:<layer>`,
 * `fill:<layer>`, `comp`; any other column is a var of the output path (`{sku}`). An empty cell leaves its layer as
 * the template has it.
 */

type Variant = {
  id?: string;
  text?: Record<string, string>;
  images?: Record<string, string>;
  visible?: Record<string, boolean>;
  fills?: Record<string, string>;
  comp?: string;
  vars?: Record<string, string>;
  edits?: Array<{ method: string; params?: Record<string, unknown> }>;
};

/** `--trim`: the last edit of every variant, so a comp that leaves part of the canvas empty gives a smaller file. */
const TRIM = { method: "document:trim" } as const;

type Outcome = { id: string; ok: boolean; path?: string; error?: { code: string; message: string } };

/** A CSV file's rows (RFC 4180: quoted fields may hold commas, quotes doubled, line breaks), the first being the header. */
export function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === "") quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      field = "";
      if (row.some((cell) => cell !== "")) rows.push(row);
      row = [];
    } else field += c;
  }
  row.push(field);
  if (row.some((cell) => cell !== "")) rows.push(row);
  const [header, ...body] = rows;
  if (header === undefined) return [];
  return body.map((cells) => Object.fromEntries(header.map((name, i) => [name.trim(), cells[i] ?? ""])));
}

const TRUE = new Set(["true", "1", "yes", "y", "on", "shown"]);
const FALSE = new Set(["false", "0", "no", "n", "off", "hidden"]);

/** One row of columns as a variant. @throws UsageError naming the row and column of a value that is not a boolean */
export function rowToVariant(row: Record<string, unknown>, index: number, comp: string | undefined): Variant {
  const variant: Variant = {};
  if (comp !== undefined) variant.comp = comp;
  const put = <K extends "text" | "images" | "visible" | "fills" | "vars">(key: K, name: string, value: NonNullable<Variant[K]>[string]): void => {
    variant[key] ??= {};
    (variant[key] as Record<string, unknown>)[name] = value;
  };
  for (const [column, raw] of Object.entries(row)) {
    const value = typeof raw === "string" ? raw : String(raw);
    const colon = column.indexOf(":");
    const kind = colon === -1 ? column : column.slice(0, colon);
    const layer = column.slice(colon + 1);
    if (column === "id") variant.id = value;
    else if (column === "comp") {
      if (value !== "") variant.comp = value;
    } else if (colon !== -1 && kind === "text") {
      if (value !== "") put("text", layer, value);
    } else if (colon !== -1 && kind === "image") {
      if (value !== "") put("images", layer, value);
    } else if (colon !== -1 && kind === "fill") {
      if (value !== "") put("fills", layer, value);
    } else if (colon !== -1 && kind === "visible") {
      const word = typeof raw === "boolean" ? String(raw) : value.trim().toLowerCase();
      if (word === "") continue;
      if (!TRUE.has(word) && !FALSE.has(word)) throw new UsageError(`row ${index + 1}, column ${column}: "${value}" is not true or false`);
      put("visible", layer, TRUE.has(word));
    } else put("vars", column, value);
  }
  return variant;
}

/** The variants of a `--data` file: CSV by its extension, else JSON (an array of rows, or of variants as the wire takes them). */
export async function readVariants(path: string, comp: string | undefined): Promise<Variant[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new UsageError(`--data ${path}: ${(error as Error).message}`);
  }
  if (extname(path).toLowerCase() === ".csv") return parseCsv(text).map((row, i) => rowToVariant(row, i, comp));
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--data ${path}: not JSON (${(error as Error).message}); a .csv file is read as CSV`);
  }
  if (!Array.isArray(rows)) throw new UsageError(`--data ${path}: the JSON must be an array of rows`);
  const WIRE = ["text", "images", "visible", "fills", "vars", "edits"];
  return rows.map((row, i) => {
    if (typeof row !== "object" || row === null) throw new UsageError(`--data ${path}: row ${i + 1} is not an object`);
    if (Object.keys(row).some((key) => WIRE.includes(key))) return { ...(comp === undefined ? {} : { comp }), ...(row as Variant) };
    return rowToVariant(row as Record<string, unknown>, i, comp);
  });
}

export interface RenderTemplateIo {
  readonly out: { write(text: string): unknown };
  readonly err: { write(text: string): unknown; isTTY?: boolean };
  readonly json: boolean;
}

/** The bar drawn over itself on a terminal, or one line per finished variant elsewhere. */
function progressWriter(io: RenderTemplateIo, total: number): { report: InvokeOptions["onProgress"]; end(): void } {
  const tty = io.err.isTTY === true && !io.json;
  const WIDTH = 30;
  return {
    report: (report) => {
      const done = report.progress;
      if (io.json) io.err.write(`${JSON.stringify({ progress: report })}\n`);
      else if (tty) {
        const filled = Math.round((done / total) * WIDTH);
        io.err.write(`\r[${"#".repeat(filled)}${" ".repeat(WIDTH - filled)}] ${done}/${total} ${report.message ?? ""}\x1b[K`);
      } else io.err.write(`${done}/${total} ${report.message ?? ""}\n`);
    },
    end: () => {
      if (tty) io.err.write("\n");
    },
  };
}

/**
 * Renders the variants through `invoke` and prints the summary; resolves with whether every variant was written.
 *
 * @example
 * const allDone = await renderTemplate(io, invoke, { template: "card.psd", data: "rows.csv", output: "out/{id}.png" });
 */
export async function renderTemplate(
  io: RenderTemplateIo,
  invoke: (method: string, params: unknown, options: InvokeOptions) => Promise<unknown>,
  options: {
    template: string;
    data: string;
    output: string;
    comp?: string | undefined;
    concurrency?: number | undefined;
    /** Crop each variant's fully transparent edges before it is written (`document:trim`), after its own edits. */
    trim?: boolean;
    invoke: InvokeOptions;
  },
): Promise<boolean> {
  const rows = await readVariants(options.data, options.comp);
  const variants = options.trim ? rows.map((v) => ({ ...v, edits: [...(v.edits ?? []), TRIM] })) : rows;
  if (variants.length === 0) throw new UsageError(`--data ${options.data} holds no rows`);
  const started = performance.now();
  const bar = progressWriter(io, variants.length);
  const params = {
    template: { path: resolve(options.template) },
    variants,
    output: { path: resolve(options.output) },
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
  };
  let answer: { variants: Outcome[] };
  try {
    answer = (await invoke("template:render", params, { ...options.invoke, onProgress: bar.report })) as { variants: Outcome[] };
  } finally {
    bar.end();
  }
  const failed = answer.variants.filter((v) => !v.ok);
  const seconds = (performance.now() - started) / 1000;
  if (io.json) io.out.write(`${JSON.stringify({ ...answer, done: answer.variants.length - failed.length, failed: failed.length, seconds })}\n`);
  else {
    io.out.write(`${answer.variants.length - failed.length} done, ${failed.length} failed, ${seconds.toFixed(1)} s\n`);
    for (const variant of failed) io.out.write(`  ${variant.id}: ${variant.error?.code ?? "FAILED"} ${variant.error?.message ?? ""}\n`);
  }
  return failed.length === 0;
}
