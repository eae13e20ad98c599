import { BridgeError } from "../../protocol/index.js";
import { MAX_LITERAL_CHARS } from "./limits.js";

/** A value as TinyScheme prints it: numbers, strings, booleans, symbols, lists and vectors. */
export type Sexp = number | string | boolean | { readonly symbol: string } | readonly Sexp[];

/**
 * A Scheme string literal holding exactly `text`. Only `\` and `"` can end or alter a literal, so escaping those
 * two makes any text inert (no injection). Texts longer than TinyScheme's literal limit are joined with
 * `string-append`. NUL cannot be represented and is refused.
 */
export function lit(text: string): string {
  if (text.includes("\0")) throw new BridgeError("BAD_REQUEST", "Text passed to GIMP must not contain NUL characters");
  const quote = (part: string): string => `"${part.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  const points = Array.from(text);
  if (points.length <= MAX_LITERAL_CHARS) return quote(text);
  const parts: string[] = [];
  for (let i = 0; i < points.length; i += MAX_LITERAL_CHARS) parts.push(quote(points.slice(i, i + MAX_LITERAL_CHARS).join("")));
  return `(string-append ${parts.join(" ")})`;
}

/** An integer argument; refuses anything that is not a safe integer so no text reaches the script. */
export function int(value: number): string {
  if (!Number.isSafeInteger(value)) throw new BridgeError("BAD_REQUEST", "Expected an integer", { details: { value } });
  return String(value);
}

/** A finite number argument. */
export function num(value: number): string {
  if (!Number.isFinite(value)) throw new BridgeError("BAD_REQUEST", "Expected a finite number", { details: { value } });
  return String(value);
}

class SexpSyntaxError extends Error {}

/**
 * Parses what TinyScheme's `write` prints. Throws on anything else (a truncated or desynchronised reply).
 */
export function parseSexp(text: string): Sexp {
  let pos = 0;
  const fail = (why: string): never => {
    throw new SexpSyntaxError(`${why} at ${pos} in ${JSON.stringify(text.slice(0, 120))}`);
  };
  const skip = (): void => {
    while (pos < text.length && /\s/.test(text[pos]!)) pos++;
  };
  const value = (): Sexp => {
    skip();
    const c = text[pos];
    if (c === undefined) return fail("unexpected end");
    if (c === "(") {
      pos++;
      return sequence(")");
    }
    if (c === "#" && text[pos + 1] === "(") {
      pos += 2;
      return sequence(")");
    }
    if (c === '"') return string();
    const start = pos;
    while (pos < text.length && !/[\s()"]/.test(text[pos]!)) pos++;
    const atom = text.slice(start, pos);
    if (atom === "#t") return true;
    if (atom === "#f") return false;
    if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(atom)) return Number(atom);
    if (atom === "") return fail("unexpected character");
    return { symbol: atom };
  };
  const sequence = (close: string): Sexp[] => {
    const out: Sexp[] = [];
    for (;;) {
      skip();
      if (pos >= text.length) return fail("unclosed list");
      if (text[pos] === close) {
        pos++;
        return out;
      }
      out.push(value());
    }
  };
  const string = (): string => {
    pos++;
    let out = "";
    for (;;) {
      const c = text[pos++];
      if (c === undefined) return fail("unclosed string");
      if (c === '"') return out;
      if (c !== "\\") {
        out += c;
        continue;
      }
      const e = text[pos++];
      if (e === "n") out += "\n";
      else if (e === "t") out += "\t";
      else if (e === "r") out += "\r";
      else if (e === "x") {
        const hex = /^[0-9a-fA-F]{1,2}/.exec(text.slice(pos));
        if (!hex) return fail("bad \\x escape");
        out += String.fromCharCode(Number.parseInt(hex[0], 16));
        pos += hex[0].length;
        if (text[pos] === ";") pos++;
      } else if (e === undefined) return fail("unclosed string");
      else out += e;
    }
  };
  const result = value();
  skip();
  if (pos !== text.length) fail("trailing text");
  return result;
}

/** Whether a reply failed to parse as an s-expression. */
export function isSexpSyntaxError(error: unknown): boolean {
  return error instanceof SexpSyntaxError;
}

/** A Scheme value as JSON: lists and vectors become arrays, symbols their names. */
export function sexpToJson(value: Sexp): unknown {
  if (Array.isArray(value)) return value.map(sexpToJson);
  if (typeof value === "object" && value !== null && "symbol" in value) return (value as { symbol: string }).symbol;
  return value;
}

/** Narrowing helpers for replies of a known shape; a wrong shape is an editor fault, not a client error. */
export function asList(value: Sexp, what: string): readonly Sexp[] {
  if (!Array.isArray(value)) throw shapeError(what, value);
  return value as readonly Sexp[];
}

export function asNumber(value: Sexp | undefined, what: string): number {
  if (typeof value !== "number") throw shapeError(what, value);
  return value;
}

export function asString(value: Sexp | undefined, what: string): string {
  if (typeof value !== "string") throw shapeError(what, value);
  return value;
}

function shapeError(what: string, value: Sexp | undefined): BridgeError {
  return new BridgeError("INTERNAL", `GIMP answered an unexpected ${what}`, {
    details: { what, got: JSON.stringify(value)?.slice(0, 200) },
  });
}
