/*
 * The few browser APIs the dashboard uses, typed here: the project compiles for Node without the DOM library (adding
 * it would change the globals every Node file sees), so the dashboard names only what it calls.
 */

export interface DomEvent {
  readonly target: unknown;
  preventDefault(): void;
}

/** An HTML or SVG element, as far as the dashboard uses one. */
export interface Elem {
  textContent: string | null;
  className: string;
  hidden: boolean;
  title: string;
  scrollTop: number;
  readonly clientHeight: number;
  readonly style: { height: string; transform: string; paddingLeft: string };
  replaceChildren(...nodes: Array<Elem | string>): void;
  append(...nodes: Array<Elem | string>): void;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  addEventListener(type: string, listener: (event: DomEvent) => void, options?: { passive?: boolean }): void;
}

export interface InputElem extends Elem {
  value: string;
  checked: boolean;
  disabled: boolean;
  focus(): void;
}

export interface ImageElem extends Elem {
  src: string;
  alt: string;
}

interface DomDocument {
  getElementById(id: string): Elem | null;
  createElement(tag: string): Elem;
  createElementNS(namespace: string, tag: string): Elem;
  readonly hidden: boolean;
  addEventListener(type: string, listener: () => void): void;
}

interface BrowserGlobals {
  readonly document: DomDocument;
  readonly location: { readonly origin: string; readonly protocol: string; readonly host: string; reload(): void };
  addEventListener(type: "pagehide" | "pageshow", listener: (event: { readonly persisted?: boolean }) => void): void;
  readonly sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void; removeItem(key: string): void };
  requestAnimationFrame(callback: (time: number) => void): number;
  readonly URL: { createObjectURL(blob: Blob): string; revokeObjectURL(url: string): void };
}

/** The page's globals (only valid in a browser). */
export const browser = globalThis as unknown as BrowserGlobals;

const SVG_NS = "http://www.w3.org/2000/svg";

/** The element with `id`; the page's HTML defines every id the scripts ask for. */
export function byId<T extends Elem = Elem>(id: string): T {
  const found = browser.document.getElementById(id);
  if (found === null) throw new Error(`the dashboard page has no #${id}`);
  return found as T;
}

/** A new element with a class and children (text is set as text, never parsed as HTML). */
export function el<T extends Elem = Elem>(tag: string, className = "", ...children: Array<Elem | string>): T {
  const made = browser.document.createElement(tag) as T;
  if (className !== "") made.className = className;
  if (children.length > 0) made.append(...children);
  return made;
}

/** A new SVG element with attributes. */
export function svg(tag: string, attributes: Record<string, string | number> = {}): Elem {
  const made = browser.document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, String(value));
  return made;
}
