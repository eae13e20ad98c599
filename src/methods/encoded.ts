/*
 * A result whose JSON text is already known. A method whose answer rarely changes (`getServerInfo`) keeps the text
 * with the object it answers, and the WebSocket response is written from the text instead of serializing the object
 * again on every call. Everyone else (HTTP, MCP, batches, plugins) sees the plain object.
 */

const TEXTS = new WeakMap<object, string>();

/** Records `text` as the JSON of `value`, which must not change afterwards: it is frozen. */
export function keepEncoding<T extends object>(value: T, text: string = JSON.stringify(value)): Readonly<T> {
  TEXTS.set(Object.freeze(value), text);
  return value;
}

/** The JSON text recorded for `value`, or undefined when it has none. */
export function encodingOf(value: unknown): string | undefined {
  return typeof value === "object" && value !== null ? TEXTS.get(value) : undefined;
}
