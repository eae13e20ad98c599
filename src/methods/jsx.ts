import { readNamedScript } from "../files/index.js";
import type { ScriptLanguage } from "../hosts/host.js";
import { BridgeError } from "../protocol/index.js";
import { defineMethod, type MethodContext, type MethodDefinition } from "./define.js";
import { requireOp } from "./_internal/support.js";

/**
 * Deadline of a script whose caller gives no `timeoutMs`: long enough for glue scripts, short enough that a
 * forgotten infinite loop does not hold the editor for the whole long-call deadline.
 * @default 30_000
 */
export const DEFAULT_SCRIPT_TIMEOUT_MS = 30_000;

/** A script's own deadline: the caller's, else the default, never past the long call deadline. */
const scriptDeadline = (requested: number | undefined, longCallTimeoutMs: number): number =>
  Math.min(requested ?? DEFAULT_SCRIPT_TIMEOUT_MS, longCallTimeoutMs);

/**
 * Editor scripts that can read and write any file (Photoshop's ExtendScript, GIMP's Script-Fu) would walk around
 * the files roots, so while file access is confined they run only if the operator allowed them. The embedded
 * editor's scripts are sandboxed and their file access goes through the roots, so they always run.
 */
function checkScriptsAllowed(ctx: MethodContext, method: string): void {
  const { files } = ctx.bridge;
  const roots = files.policy.roots;
  if (roots === null || ctx.host.scriptsReachFiles !== true || files.allowEditorScripts) return;
  throw new BridgeError(
    "FORBIDDEN",
    `${method} is refused: ${ctx.host.kind} scripts can read and write any file, and file access is confined to the files roots; start the bridge with --allow-editor-scripts to allow them`,
    { details: { capability: method, editor: ctx.host.kind, roots } },
  );
}

/** The editor's script language, checked against the one a call asks for (absent: the editor's own). */
function languageOf(ctx: MethodContext, method: string, requested: string | undefined): { lang: ScriptLanguage; language: string } {
  const lang = ctx.host.scriptLanguage;
  if (lang === undefined) {
    throw new BridgeError("NOT_SUPPORTED", `The ${ctx.host.kind} editor does not run scripts`, { details: { capability: method, editor: ctx.host.kind } });
  }
  const language = requested ?? lang.names[0]!;
  if (!lang.names.includes(language)) {
    throw new BridgeError("NOT_SUPPORTED", `The ${ctx.host.kind} editor runs ${lang.label} (${lang.names.join(", ")}), not ${language}`, {
      details: { capability: method, editor: ctx.host.kind, language, accepted: lang.names },
    });
  }
  return { lang, language };
}

/** Scripts. No HTTP routes: scripts are WebSocket-only. */
export const jsxMethods: MethodDefinition[] = [
  defineMethod("jsx:run", {
    description:
      "Runs a script in the editor (JavaScript on the embedded editor, ExtendScript on Photoshop, Script-Fu on GIMP) and answers the value it completed with. WebSocket only.",
    examples: [{ script: "app.activeDocument.name", timeoutMs: 5000 }],
    host: true,
    mutates: true,
    // A script may do anything the editor can: never for a read token, whatever it is said to do.
    readable: false,
    long: true,
    run: async (ctx, { script, language: requested, timeoutMs }) => {
      checkScriptsAllowed(ctx, "jsx:run");
      const run = requireOp(ctx.host, "runScript", "jsx:run");
      const { lang, language } = languageOf(ctx, "jsx:run", requested);
      const size = Buffer.byteLength(script);
      if (size > lang.maxBytes) {
        throw new BridgeError("PAYLOAD_TOO_LARGE", `Scripts are limited to ${lang.maxBytes} bytes`, { details: { size, maxBytes: lang.maxBytes } });
      }
      const deadline = scriptDeadline(timeoutMs, ctx.bridge.limits.longCallTimeoutMs);
      return { result: await run(ctx.call, { source: script, language, params: undefined, timeoutMs: deadline }) };
    },
  }),
  defineMethod("jsx:execute", {
    description:
      "Runs a named script from the bridge's script folders with the given params and answers the value it completed with. WebSocket only.",
    examples: [{ name: "resize-all", params: { width: 512 } }],
    host: true,
    mutates: true,
    // A script may do anything the editor can: never for a read token, whatever it is said to do.
    readable: false,
    long: true,
    run: async (ctx, { name, params, timeoutMs }) => {
      checkScriptsAllowed(ctx, "jsx:execute");
      const run = requireOp(ctx.host, "runScript", "jsx:execute");
      const { lang, language } = languageOf(ctx, "jsx:execute", undefined);
      const named = await readNamedScript(ctx.bridge.scriptDirs, name, { extension: lang.extension, language: lang.label, maxBytes: lang.maxBytes });
      const deadline = scriptDeadline(timeoutMs, ctx.bridge.limits.longCallTimeoutMs);
      return { result: await run(ctx.call, { source: named.source, language, params: params ?? {}, timeoutMs: deadline }) };
    },
  }),
];
