import { readFileSync } from "node:fs";
import { type NotesHandler, readEnvelope } from "./envelope.js";
import type { PhotoshopLink } from "./link.js";

/**
 * The operation scripts (`jsx/*.jsx`). The URL climbs to the package root and back into `src/`, so it resolves
 * the same from `src/hosts/photoshop/` (vitest) and `dist/hosts/photoshop/` (the build): both are three levels deep.
 */
export const JSX_DIR: URL = new URL("../../../src/hosts/photoshop/jsx/", import.meta.url);

export const OPERATIONS = [
  "app.info",
  "document.list",
  "document.get",
  "document.tree",
  "document.create",
  "document.open",
  "document.close",
  "document.save",
  "document.comps",
  "layer.get",
  "layer.placed",
  "layer.select",
  "layer.active",
  "layer.place",
  "selection.get",
  "selection.set",
  "selection.path",
  "action.autoCutout",
  "action.removeBackground",
  "pixmap",
  "events.subscribe",
  "edit.layer",
  "edit.transform",
  "edit.mask",
  "edit.document",
  "edit.selection",
  "edit.filter",
  "edit.comps",
  "edit.contents",
  "edit.effects",
  "history",
  "font.list",
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** The marker line each operation file starts with; the fake Photoshop recognises operations by it. */
export const OPERATION_MARKER = "// @bridge-op ";

const cache = new Map<string, string>();

/**
 * A script file as it is sent: comment lines emptied and indentation dropped. Every call ships its whole script,
 * libraries included (some 50–80 KiB), and Remote Connections encrypts it with 3DES on the way in and Photoshop
 * parses all of it, so the file's explanations (about a third of its bytes) cost each call time on both sides.
 * Lines stay where they were, so a line number in an error still counts the same lines; the operation marker
 * stays, and comments after code on a line are left alone (a `//` there may sit inside a string).
 */
export function compactJsx(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      const code = line.trimStart();
      return code.startsWith("//") && !code.startsWith(OPERATION_MARKER) ? "" : code;
    })
    .join("\n");
}

/**
 * Synchronous on purpose: each script file is a few KiB shipped inside the package, read and compacted once, on its
 * first use, and cached for the life of the process (about forty files in all), so the thread that serves clients
 * pays for each file once, never per call.
 */
function readJsx(file: string): string {
  let text = cache.get(file);
  if (text === undefined) {
    text = compactJsx(readFileSync(new URL(file, JSX_DIR), "utf8"));
    cache.set(file, text);
  }
  return text;
}

/**
 * A JSON literal safe to splice into ExtendScript source: JSON is valid ES3 object-literal syntax except for
 * U+2028/U+2029, which end an ES3 string literal, so they are escaped too. Strings cannot break out: every quote
 * and backslash is escaped by `JSON.stringify`.
 */
export function paramsLiteral(params: unknown): string {
  return (JSON.stringify(params ?? null) ?? "null").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

/** The `var params = …;` line every parameterised script starts with (the convention generator-core uses too). */
export function paramsPrefix(params: unknown): string {
  return `var params = ${paramsLiteral(params)};\n`;
}

/** The operations that build fill and adjustment contents (`_content.jsx`). */
const CONTENT_OPERATIONS: ReadonlySet<Operation> = new Set(["edit.layer", "edit.filter"]);

/**
 * The complete, self-contained script of one operation with its params: every one reads layers with their effects
 * (`_tree.jsx`, `_effects.jsx`); the edits also get `_edit.jsx`, and those that build fill and adjustment contents
 * `_content.jsx`.
 */
export function buildScript(op: Operation, params: Record<string, unknown>): string {
  const edit = op.startsWith("edit.") ? `${readJsx("_edit.jsx")}\n` : "";
  const content = CONTENT_OPERATIONS.has(op) ? `${readJsx("_content.jsx")}\n` : "";
  return `${paramsPrefix(params)}${readJsx("_lib.jsx")}\n${readJsx("_tree.jsx")}\n${readJsx("_effects.jsx")}\n${edit}${content}${readJsx(`${op}.jsx`)}\n__bridgeMain();`;
}

/** Runs one operation in Photoshop and answers its envelope's result (or throws its error). */
export type RunOperation = <T>(signal: AbortSignal, op: Operation, params?: Record<string, unknown>) => Promise<T>;

/** The {@link RunOperation} of a link; what a script notes beside its answer goes to `onNotes`. */
export function operationRunner(link: PhotoshopLink, onNotes?: NotesHandler): RunOperation {
  return async <T>(signal: AbortSignal, op: Operation, params: Record<string, unknown> = {}): Promise<T> =>
    readEnvelope(await link.evaluate(buildScript(op, params), signal), op, onNotes) as T;
}
