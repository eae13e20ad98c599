/*
 * An ExtendScript-like realm: ECMAScript 3 syntax (acorn `ecmaVersion: 3`) and a `node:vm` context stripped of
 * what ES3 lacks, so an operation that leans on `Array.prototype.map`, `JSON` or `String.prototype.trim` fails
 * here as it would in Photoshop. ExtendScript implements ECMA-262 3rd edition ("JavaScript Tools Guide CC",
 * chapter 1, "ExtendScript ... implements the ECMA-262 standard 3rd edition").
 */
import { runInContext, createContext, Script, type Context } from "node:vm";
import { parse } from "acorn";

const ES3 = { ecmaVersion: 3, sourceType: "script" } as const;

/** Throws a SyntaxError when `source` is not ECMAScript 3. */
export function parseEs3(source: string): void {
  parse(source, ES3);
}

// ES5+ built-ins, removed from the realm before a script runs (ECMA-262 5th edition, annex E lists the additions).
const STRIP = `
(function () {
  var gone = {
    "Array.prototype": ["map", "forEach", "filter", "indexOf", "lastIndexOf", "reduce", "reduceRight", "every", "some",
      "find", "findIndex", "includes", "fill", "keys", "values", "entries", "flat", "flatMap", "at", "copyWithin", "findLast", "findLastIndex", "toSorted", "toReversed", "with"],
    "Array": ["isArray", "from", "of"],
    "Object": ["keys", "create", "defineProperty", "defineProperties", "getPrototypeOf", "getOwnPropertyNames",
      "getOwnPropertyDescriptor", "freeze", "isFrozen", "seal", "isSealed", "preventExtensions", "isExtensible",
      "assign", "entries", "values", "fromEntries", "is", "setPrototypeOf", "getOwnPropertySymbols", "getOwnPropertyDescriptors", "groupBy", "hasOwn"],
    "String.prototype": ["trim", "trimLeft", "trimRight", "trimStart", "trimEnd", "includes", "startsWith", "endsWith",
      "repeat", "padStart", "padEnd", "codePointAt", "normalize", "at", "replaceAll", "matchAll"],
    "Function.prototype": ["bind"],
    "Date": ["now"],
    "Date.prototype": ["toISOString", "toJSON"],
    "Number": ["isInteger", "isFinite", "isNaN", "parseFloat", "parseInt", "isSafeInteger", "EPSILON"]
  };
  for (var owner in gone) {
    var target = owner.split(".").length === 2 ? this[owner.split(".")[0]].prototype : this[owner];
    for (var i = 0; i < gone[owner].length; i++) delete target[gone[owner][i]];
  }
  var globals = ["JSON", "Promise", "Map", "Set", "WeakMap", "WeakSet", "Symbol", "Proxy", "Reflect", "ArrayBuffer",
    "Uint8Array", "Int8Array", "Uint16Array", "Int16Array", "Uint32Array", "Int32Array", "Float32Array", "Float64Array",
    "Uint8ClampedArray", "BigInt", "BigInt64Array", "BigUint64Array", "DataView", "globalThis", "Intl", "WebAssembly",
    "SharedArrayBuffer", "Atomics", "WeakRef", "FinalizationRegistry", "AggregateError", "queueMicrotask", "structuredClone"];
  for (var j = 0; j < globals.length; j++) delete this[globals[j]];
}).call(this);
`;

const STRIP_SCRIPT = new Script(STRIP);

/** Each realm's own `Array`, as the realm was made (before a script could assign another to the global). */
const realmArrays = new WeakMap<Context, ArrayConstructor>();
const REALM_ARRAY = new Script("Array");

/** A fresh ES3 realm holding `globals` (the Photoshop DOM stub). */
export function es3Realm(globals: Record<string, unknown>): Context {
  const context = createContext({});
  STRIP_SCRIPT.runInContext(context);
  realmArrays.set(context, REALM_ARRAY.runInContext(context) as ArrayConstructor);
  for (const [name, value] of Object.entries(globals)) context[name] = value;
  return context;
}

/**
 * Arrays made inside the realm (a Node array would carry the ES5 methods the realm lacks), by the realm's own
 * `Array`: the same prototype as its `[]`, without compiling a script at every array.
 */
export function realmArray(context: Context, items: readonly unknown[]): unknown[] {
  const RealmArray = realmArrays.get(context);
  const out = RealmArray === undefined ? (runInContext("[]", context) as unknown[]) : new RealmArray<unknown>();
  for (const item of items) out.push(item);
  return out;
}

/** How many operation bodies {@link runEs3} keeps checked and compiled before it starts over. */
export const MAX_COMPILED_BODIES = 256;

/** Operation bodies already found to be ES3, compiled once: an operation's body is the same text at every call. */
const compiled = new Map<string, Script>();

/** The one-line `var params = …;` an operation script starts with (`paramsPrefix` in the bridge). */
const PARAMS_LINE = /^var params = [^\n]*;\n/;

/** `body` (what follows the params line) checked as ES3 and compiled, or undefined when it does not parse alone. */
function compiledBody(body: string, filename: string): Script | undefined {
  const key = `${filename}\n${body}`;
  let script = compiled.get(key);
  if (script === undefined) {
    try {
      parseEs3(body);
    } catch {
      return undefined;
    }
    script = new Script(body, { filename, lineOffset: 1 });
    if (compiled.size >= MAX_COMPILED_BODIES) compiled.clear();
    compiled.set(key, script);
  }
  return script;
}

/**
 * Parses `source` as ES3, then runs it in `context`, answering its completion value. A script that starts with its
 * params line runs as that line, then the rest, when each parses alone: the rest is the operation's fixed text,
 * checked and compiled once for all its calls (parsing and compiling its tens of KiB at every call was most of the
 * fake's time). The rest keeps its line numbers, which error replies quote.
 */
export function runEs3(context: Context, source: string, filename: string, timeoutMs: number): unknown {
  const head = PARAMS_LINE.exec(source)?.[0];
  if (head !== undefined) {
    const body = compiledBody(source.slice(head.length), filename);
    if (body !== undefined && parses(head)) {
      // No timeout: the line is one assignment of a literal, which cannot run long, and a timeout starts a watchdog
      // thread for the run (some 70 µs of CPU and 300 µs of waiting a call on a loaded machine).
      runInContext(head, context, { filename });
      return body.runInContext(context, { timeout: timeoutMs });
    }
  }
  parseEs3(source);
  return runInContext(source, context, { filename, timeout: timeoutMs });
}

function parses(source: string): boolean {
  try {
    parseEs3(source);
    return true;
  } catch {
    return false;
  }
}
