import { BridgeError, ERROR_CODES } from "../../protocol/index.js";
import { jsxFailed } from "./errors.js";

/** Codes a bridge script may report; anything else becomes JSX_FAILED. */
const SCRIPT_CODES = new Set<string>([
  ERROR_CODES.NO_DOCUMENT,
  ERROR_CODES.DOCUMENT_NOT_FOUND,
  ERROR_CODES.LAYER_NOT_FOUND,
  ERROR_CODES.BAD_REQUEST,
  ERROR_CODES.NOT_SUPPORTED,
  ERROR_CODES.JSX_FAILED,
]);

interface Envelope {
  ok: boolean;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; details?: unknown };
  notes?: unknown;
}

/** Most notes taken from one envelope: a script notes what it fell back on, a handful at most; more is noise. */
export const MAX_ENVELOPE_NOTES = 8;

/** Longest note kept, in characters: a note names a reason, and a script's text must not flood the log. */
export const MAX_NOTE_CHARS = 500;

/** Called with what a script noted beside its answer (what it fell back on), when it noted anything. */
export type NotesHandler = (operation: string, notes: string[]) => void;

function isEnvelope(value: unknown): value is Envelope {
  return typeof value === "object" && value !== null && typeof (value as { ok?: unknown }).ok === "boolean";
}

/** Whether a reply text is a bridge envelope (`{"ok":…}`), as opposed to a bounds JSON or a literal. */
export function looksLikeEnvelope(text: string): boolean {
  return text.startsWith('{"ok":');
}

/**
 * Reads the JSON envelope a bridge script returns: the result, or the script's error as a `BridgeError` with its
 * code (`NO_DOCUMENT`, `LAYER_NOT_FOUND`, …). Notes beside the answer go to `onNotes`.
 */
export function readEnvelope(text: string, operation: string, onNotes?: NotesHandler): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw jsxFailed(`Photoshop answered ${operation} with something other than its JSON envelope`, {
      operation,
      reply: text.slice(0, 200),
    });
  }
  if (!isEnvelope(parsed)) throw jsxFailed(`Photoshop answered ${operation} without an envelope`, { operation });
  if (onNotes && Array.isArray(parsed.notes)) {
    const notes = parsed.notes.filter((n): n is string => typeof n === "string").slice(0, MAX_ENVELOPE_NOTES);
    if (notes.length > 0) onNotes(operation, notes.map((n) => n.slice(0, MAX_NOTE_CHARS)));
  }
  if (parsed.ok) return parsed.result ?? null;
  const error = parsed.error ?? {};
  const code = typeof error.code === "string" && SCRIPT_CODES.has(error.code) ? error.code : ERROR_CODES.JSX_FAILED;
  const message = typeof error.message === "string" ? error.message : `${operation} failed in Photoshop`;
  const details = typeof error.details === "object" && error.details !== null ? (error.details as Record<string, unknown>) : {};
  throw new BridgeError(code, message, { details: { ...details, operation } });
}
