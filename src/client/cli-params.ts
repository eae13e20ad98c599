/* Reading the values of a client command line: params for `call`, numbers for the other options. */

/** Thrown for bad command lines; the CLI prints the message and the usage and exits with status 2. */
export class UsageError extends Error {}

export function positiveInt(flag: string, text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1) throw new UsageError(`${flag} expects a positive integer, got "${text}"`);
  return value;
}

export function nonNegativeInt(flag: string, text: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag} expects an integer of 0 or more, got "${text}"`);
  return Number(text);
}

/** `[json] --param a=1 --param rect.x=2` → params; values parse as JSON when they can, else stay strings. */
export function buildParams(body: string | undefined, pairs: string[]): unknown {
  let params: unknown;
  if (body !== undefined) {
    try {
      params = JSON.parse(body);
    } catch {
      throw new UsageError(`The params argument is not valid JSON: ${body}`);
    }
  }
  if (pairs.length === 0) return params;
  if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) {
    throw new UsageError("--param needs the JSON argument, when given, to be an object");
  }
  const out = (params ?? {}) as Record<string, unknown>;
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new UsageError(`--param expects key=value, got "${pair}"`);
    const keys = pair.slice(0, eq).split(".");
    const text = pair.slice(eq + 1);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
    let target = out;
    for (const key of keys.slice(0, -1)) {
      const next = target[key];
      if (typeof next !== "object" || next === null || Array.isArray(next)) target[key] = {};
      target = target[key] as Record<string, unknown>;
    }
    target[keys[keys.length - 1]!] = value;
  }
  return out;
}
