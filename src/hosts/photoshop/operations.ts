import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { packageRoot } from "../../package-root.js";
import { type NotesHandler, readEnvelope } from "./envelope.js";
import type { PhotoshopLink } from "./link.js";

/** The operation scripts (`jsx/*.jsx`), shipped as sources in the package's `src/hosts/photoshop/jsx/`. */
export const JSX_DIR: URL = pathToFileURL(`${join(packageRoot(), "src", "hosts", "photoshop", "jsx")}/`);

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

/**
 * A script file as it is sent: comment lines emptied and indentation dropped. Every call ships its whole script,
 * libraries included, and Remote Connections encrypts it with 3DES on the way in and Photoshop parses all of it, so
 * the file's explanations (about a third of its bytes) cost each call time on both sides. Lines stay where they
 * were, so a line number in an error still counts the same lines; the operation marker stays, and comments after
 * code on a line are left alone (a `//` there may sit inside a string).
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
 * One top-level part of a library file, its lines compacted: a `function` or `var` declaration with the names it
 * declares, or (`always`) what comes before the first one and any other top-level statement, which is always sent.
 */
interface Part {
  readonly names: readonly string[];
  readonly always: boolean;
  readonly lines: string[];
}

/** A top-level declaration starts at column 0 of the file as written (compacting drops the indentation). */
const DECLARATION_START = /^(?:function\s+([A-Za-z_$][\w$]*)|var\s)/;
/** Any other line at column 0 but a closing bracket or a comment starts a statement that is always sent. */
const STATEMENT_START = /^[^\s})\]/]/;
/** The names a top-level `var` line declares (an extra match only keeps more). */
const VAR_NAMES = /(?:^var\s+|,\s*)([A-Za-z_$][\w$]*)\s*(?=[=,;]|$)/g;
const IDENTIFIER = /[A-Za-z_$][\w$]*/g;

const libraries = new Map<string, readonly Part[]>();

/**
 * Synchronous on purpose: each script file is a few KiB shipped inside the package, read, compacted and split once,
 * on its first use, and cached for the life of the process (about forty files in all), so the thread that serves
 * clients pays for each file once, never per call.
 */
function readLibrary(file: string): readonly Part[] {
  let parts = libraries.get(file);
  if (parts === undefined) {
    const raw = readFileSync(new URL(file, JSX_DIR), "utf8").split("\n");
    const compact = compactJsx(raw.join("\n")).split("\n");
    const found: Part[] = [{ names: [], always: true, lines: [] }];
    raw.forEach((line, i) => {
      const start = DECLARATION_START.exec(line);
      if (start !== null) {
        const names = start[1] !== undefined ? [start[1]] : [...line.matchAll(VAR_NAMES)].map((m) => m[1]!);
        found.push({ names, always: false, lines: [] });
      } else if (STATEMENT_START.test(line)) {
        found.push({ names: [], always: true, lines: [] });
      }
      found.at(-1)!.lines.push(compact[i]!);
    });
    parts = found;
    libraries.set(file, parts);
  }
  return parts;
}

/**
 * The libraries' text with only the declarations `root` reaches, directly or through other declarations (any
 * identifier a line mentions counts, in a string too: `suspendHistory` runs `"__editStep()"` by name). A
 * declaration left out keeps its lines, empty, so line numbers in errors still count the same lines. Operations
 * that read a document use a small part of the libraries, and every byte sent is encrypted, decrypted and parsed
 * at every call.
 */
function reachedLibraries(files: readonly string[], root: string): string {
  const libs = files.map(readLibrary);
  const byName = new Map<string, Part[]>();
  for (const part of libs.flat()) for (const name of part.names) byName.set(name, [...(byName.get(name) ?? []), part]);
  const kept = new Set(libs.flat().filter((part) => part.always));
  const pending = [root, ...[...kept].map((part) => part.lines.join("\n"))];
  for (let text = pending.pop(); text !== undefined; text = pending.pop()) {
    for (const [name] of text.matchAll(IDENTIFIER)) {
      for (const part of byName.get(name) ?? []) {
        if (kept.has(part)) continue;
        kept.add(part);
        pending.push(part.lines.join("\n"));
      }
    }
  }
  return libs.map((parts) => parts.flatMap((part) => (kept.has(part) ? part.lines : part.lines.map(() => ""))).join("\n")).join("\n");
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

/** Each operation's script without its params line, made once per process. */
const bodies = new Map<Operation, string>();

/**
 * The complete, self-contained script of one operation with its params: the operation file after the libraries it
 * draws on. Every one may read layers with their effects (`_lib.jsx`, `_tree.jsx`, `_effects.jsx`); the edits also
 * `_edit.jsx`, and those that build fill and adjustment contents `_content.jsx`. Of these, only the declarations the
 * operation reaches are sent (`reachedLibraries`).
 */
export function buildScript(op: Operation, params: Record<string, unknown>): string {
  let body = bodies.get(op);
  if (body === undefined) {
    const files = ["_lib.jsx", "_tree.jsx", "_effects.jsx", ...(op.startsWith("edit.") ? ["_edit.jsx"] : []), ...(CONTENT_OPERATIONS.has(op) ? ["_content.jsx"] : [])];
    // Synchronous, as the libraries are read: once per operation per process (a few KiB from the package), never per call.
    const main = `${compactJsx(readFileSync(new URL(`${op}.jsx`, JSX_DIR), "utf8"))}\n__bridgeMain();`;
    body = `${reachedLibraries(files, main)}\n${main}`;
    bodies.set(op, body);
  }
  return `${paramsPrefix(params)}${body}`;
}

/** Runs one operation in Photoshop and answers its envelope's result (or throws its error). */
export type RunOperation = <T>(signal: AbortSignal, op: Operation, params?: Record<string, unknown>) => Promise<T>;

/** The {@link RunOperation} of a link; what a script notes beside its answer goes to `onNotes`. */
export function operationRunner(link: PhotoshopLink, onNotes?: NotesHandler): RunOperation {
  return async <T>(signal: AbortSignal, op: Operation, params: Record<string, unknown> = {}): Promise<T> =>
    readEnvelope(await link.evaluate(buildScript(op, params), signal), op, onNotes) as T;
}
