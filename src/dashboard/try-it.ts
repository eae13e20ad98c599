/*
 * "Try it": pick a read-only method, fill a form made from its params' JSON Schema (as `GET /schema` publishes it),
 * confirm, and see what the bridge answered (an image result as an image). The call goes over the chosen editor's
 * card connection, so methods without an HTTP route can be tried too. Only methods the table marks `mutates: false`
 * are offered, less those listed in NOT_OFFERED.
 */
import { isBridgeImage } from "../client/index.js";
import type { Acts } from "./acts.js";
import type { JsonSchema, MethodSchema } from "./api.js";
import { browser, el, type Elem, type ImageElem, type InputElem } from "./dom.js";

/**
 * Read-only in the table, yet not for trying from here: the subscriptions change what this page's own connection
 * receives, and `document:export` writes a file.
 */
const NOT_OFFERED: ReadonlySet<string> = new Set(["event:subscribe", "event:unsubscribe", "selection:change", "document:export"]);
/** Characters of an answer shown; a longer one is cut (the whole answer is one call away). */
const MAX_ANSWER_CHARS = 20_000;

/** How a field's text becomes a param value. */
type FieldKind = "integer" | "number" | "boolean" | "string" | "json";

interface Field {
  readonly name: string;
  readonly kind: FieldKind;
  readonly input: InputElem;
}

/** The elements of the panel (all defined by index.html). */
export interface TryItElements {
  readonly section: Elem;
  readonly method: InputElem;
  readonly editor: InputElem;
  readonly description: Elem;
  readonly fields: Elem;
  readonly send: InputElem;
  readonly error: Elem;
  readonly answer: Elem;
  readonly image: ImageElem;
}

function kindOf(schema: JsonSchema): FieldKind {
  const type = Array.isArray(schema.type) ? undefined : schema.type;
  if (schema.enum !== undefined) return "string";
  if (type === "integer" || type === "number" || type === "boolean" || type === "string") return type;
  return "json";
}

/** One labelled input for a param, typed by its schema. */
function fieldFor(name: string, schema: JsonSchema, required: boolean): { row: Elem; field: Field } {
  const kind = kindOf(schema);
  let input: InputElem;
  if (schema.enum !== undefined || kind === "boolean") {
    input = el<InputElem>("select");
    const values = schema.enum?.map(String) ?? ["true", "false"];
    // The first option is "not given": its value is the empty string, left out of the params.
    const unset = el("option", "", required ? "" : "–");
    unset.setAttribute("value", "");
    input.append(unset, ...values.map((value) => el("option", "", value)));
  } else if (kind === "json") {
    input = el<InputElem>("input");
    input.setAttribute("type", "text");
    input.setAttribute("placeholder", "JSON, or text");
  } else {
    input = el<InputElem>("input");
    input.setAttribute("type", kind === "string" ? "text" : "number");
    if (kind === "integer") input.setAttribute("step", "1");
    if (kind !== "string" && schema.minimum !== undefined && Math.abs(schema.minimum) < Number.MAX_SAFE_INTEGER) input.setAttribute("min", String(schema.minimum));
    if (kind !== "string" && schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER) input.setAttribute("max", String(schema.maximum));
  }
  input.setAttribute("name", name);
  input.setAttribute("data-param", name);
  if (required) input.setAttribute("required", "");
  const label = el("label", "try-field", el("span", "try-name", `${name}${required ? " *" : ""}`), input, el("span", "muted", describe(schema)));
  return { row: label, field: { name, kind, input } };
}

/** What a field accepts, in a few words: `integer 1–16384`, `png | jpeg | webp`, `layer id, "current", …`. */
function describe(schema: JsonSchema): string {
  if (schema.enum !== undefined) return schema.enum.map(String).join(" | ");
  if (schema.anyOf !== undefined) return schema.anyOf.map((option) => (option.const !== undefined ? JSON.stringify(option.const) : describe(option))).join(" or ");
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : (schema.type ?? "any JSON");
  const small = (n: number | undefined): n is number => n !== undefined && Math.abs(n) < Number.MAX_SAFE_INTEGER;
  if (small(schema.minimum) || small(schema.maximum)) return `${type} ${small(schema.minimum) ? schema.minimum : ""}–${small(schema.maximum) ? schema.maximum : ""}`;
  if (schema.pattern !== undefined) return `${type} matching ${schema.pattern}`;
  return type;
}

/** A field's value as a param, undefined when left empty. @throws Error naming the field when it is not valid. */
function paramOf(field: Field): unknown {
  const text = field.input.value.trim();
  if (text === "") return undefined;
  switch (field.kind) {
    case "integer":
    case "number": {
      const n = Number(text);
      if (!Number.isFinite(n)) throw new Error(`${field.name}: "${text}" is not a number`);
      return n;
    }
    case "boolean":
      return text === "true";
    case "string":
      return field.input.value;
    case "json":
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return field.input.value;
      }
  }
}

export class TryIt {
  private schema: Record<string, MethodSchema> | undefined;
  private loading = false;
  private fields: Field[] = [];
  private imageUrl: string | undefined;
  private editorIds: readonly string[] = [];

  constructor(
    private readonly dom: TryItElements,
    private readonly acts: Acts,
    private readonly load: () => Promise<{ methods: Record<string, MethodSchema> }>,
    private readonly invoke: (editorId: string, method: string, params: Record<string, unknown>) => Promise<unknown>,
  ) {
    dom.method.addEventListener("change", () => this.buildForm());
    dom.send.addEventListener("click", () => this.propose());
  }

  /** Follows each status read: shown only while acts are allowed; the schema is read once, when first shown. */
  update(editorIds: readonly string[]): void {
    this.dom.section.hidden = !this.acts.allowed;
    if (!this.acts.allowed) return;
    if (editorIds.join() !== this.editorIds.join()) {
      this.editorIds = editorIds;
      const chosen = this.dom.editor.value;
      this.dom.editor.replaceChildren(...editorIds.map((id) => el("option", "", id)));
      if (editorIds.includes(chosen)) this.dom.editor.value = chosen;
      // With one editor there is nothing to choose.
      this.dom.editor.hidden = editorIds.length < 2;
    }
    if (this.schema === undefined && !this.loading) void this.readSchema();
  }

  private async readSchema(): Promise<void> {
    this.loading = true;
    try {
      const { methods } = await this.load();
      this.schema = methods;
      const offered = Object.entries(methods)
        .filter(([name, method]) => method.mutates === false && !NOT_OFFERED.has(name))
        .map(([name]) => name)
        .sort();
      this.dom.method.replaceChildren(...offered.map((name) => el("option", "", name)));
      this.dom.send.disabled = offered.length === 0;
      this.buildForm();
    } catch (error) {
      this.dom.error.textContent = `cannot read /schema: ${(error as Error).message}`;
    } finally {
      this.loading = false;
    }
  }

  private buildForm(): void {
    const name = this.dom.method.value;
    const method = this.schema?.[name];
    this.dom.error.textContent = "";
    if (method === undefined) {
      this.fields = [];
      this.dom.fields.replaceChildren();
      return;
    }
    this.dom.description.textContent = method.description ?? "";
    const required = new Set(method.params.required ?? []);
    const made = Object.entries(method.params.properties ?? {}).map(([param, schema]) => fieldFor(param, schema, required.has(param)));
    this.fields = made.map((m) => m.field);
    this.dom.fields.replaceChildren(...(made.length > 0 ? made.map((m) => m.row) : [el("p", "muted", "no params")]));
  }

  private propose(): void {
    const method = this.dom.method.value;
    const editorId = this.dom.editor.value || this.editorIds[0];
    if (this.schema?.[method] === undefined || editorId === undefined) return;
    const params: Record<string, unknown> = {};
    try {
      for (const field of this.fields) {
        const value = paramOf(field);
        if (value !== undefined) params[field.name] = value;
      }
    } catch (error) {
      this.dom.error.textContent = (error as Error).message;
      return;
    }
    this.dom.error.textContent = "";
    const shown = Object.keys(params).length === 0 ? "" : ` ${JSON.stringify(params)}`;
    const where = this.editorIds.length > 1 ? ` on ${editorId}` : "";
    this.acts.propose(`Run ${method}${shown}${where}?`, async () => {
      try {
        this.show(await this.invoke(editorId, method, params));
        return `${method} answered`;
      } catch (error) {
        const { code, message, details } = error as { code?: string; message?: string; details?: unknown };
        this.show({ error: { code, message, ...(details === undefined ? {} : { details }) } });
        throw error;
      }
    });
  }

  /** Shows an answer: its JSON, and an image result as an image. */
  private show(answer: unknown): void {
    if (this.imageUrl !== undefined) browser.URL.revokeObjectURL(this.imageUrl);
    this.imageUrl = undefined;
    this.dom.image.removeAttribute("src");
    this.dom.image.hidden = true;
    let shown: unknown = answer;
    if (isBridgeImage(answer)) {
      this.imageUrl = browser.URL.createObjectURL(answer.blob());
      this.dom.image.src = this.imageUrl;
      this.dom.image.hidden = false;
      shown = { image: { mime: answer.mime, width: answer.width, height: answer.height, bytes: answer.bytes.byteLength } };
    }
    const text = JSON.stringify(shown, null, 2) ?? String(shown);
    this.dom.answer.textContent = text.length > MAX_ANSWER_CHARS ? `${text.slice(0, MAX_ANSWER_CHARS)}\n… (${text.length - MAX_ANSWER_CHARS} more characters)` : text;
  }
}
