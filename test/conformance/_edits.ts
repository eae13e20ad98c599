import sharp from "sharp";
import { expect } from "vitest";
import { METHOD_SCHEMAS, type BuiltinMethodName, type HostDocument, type HostLayer } from "../../src/protocol/index.js";
import type { Harness } from "../helpers/bridge.js";
import type { ConformanceEditor } from "./_editors.js";
import type { ConformanceTransport, Outcome } from "./_transports.js";
import { conformanceMatrix } from "./_editors.js";

/**
 * Every present editor over every transport, the GIMP pool aside (`conformanceMatrix`). Where an editor makes an
 * edit its own way, the case says so in that editor's `lacks` (editors/*.ts) or allows the difference where it is
 * checked.
 */
export const EDIT_MATRIX = conformanceMatrix();

/** The result of a call that must succeed, checked against its schema. */
export function expectResult(method: BuiltinMethodName, outcome: Outcome): unknown {
  if (!outcome.ok) throw new Error(`${method} failed: ${JSON.stringify(outcome.error)}`);
  return METHOD_SCHEMAS[method].result.parse(outcome.result);
}

/** Every layer of a tree in panel order. */
export function flatten(layers: readonly HostLayer[]): HostLayer[] {
  return layers.flatMap((l) => [l, ...flatten(l.children ?? [])]);
}

/** A bridge on one editor, its transport, and what its editor says it can edit. */
export interface EditSession {
  readonly harness: Harness;
  readonly t: ConformanceTransport;
  /** Whether the editor's exports show what edits paint (`ConformanceEditor.paints`). */
  readonly paints: boolean;
  call(method: BuiltinMethodName, params?: Record<string, unknown>): Promise<Outcome>;
  /** The document as `document:current` reads it. */
  current(): Promise<HostDocument>;
  /** Every layer of the active document, by name. */
  layer(name: string): Promise<HostLayer>;
  /** What the editor says it edits (`getServerInfo`'s `editors[].edits`), by method. */
  readonly edits: Readonly<Record<string, { unsupported?: string[]; unsupportedTypes?: string[] } | undefined>>;
  /**
   * Whether the editor makes `method`; when it does not, checks that a call answers `NOT_SUPPORTED` naming the
   * editor and the capability (the honest case of an editor whose edits land later).
   */
  supports(method: BuiltinMethodName, params?: Record<string, unknown>): Promise<boolean>;
  /**
   * Whether the editor honours `field` of an edit it makes; when its `unsupported` lists the field, checks that a
   * call with `params` answers `NOT_SUPPORTED` naming the editor, the capability and the field.
   */
  honours(method: BuiltinMethodName, field: string, params: Record<string, unknown>): Promise<boolean>;
}

export async function editSession(
  editor: ConformanceEditor,
  make: (h: Harness) => Promise<ConformanceTransport>,
  options?: Parameters<ConformanceEditor["start"]>[0],
): Promise<EditSession> {
  const harness = await editor.start(options);
  const t = await make(harness);
  const call = (method: BuiltinMethodName, params?: Record<string, unknown>): Promise<Outcome> => t.call(method, params);
  // What the editor says it edits, as any client reads it.
  const info = await (await harness.connect()).send("getServerInfo");
  const summaries = (info.result as { editors?: Array<{ kind: string; edits?: Record<string, unknown> }> }).editors ?? [];
  const edits = (summaries.find((e) => e.kind === editor.name)?.edits ?? {}) as EditSession["edits"];
  return {
    harness,
    t,
    paints: editor.paints,
    call,
    edits,
    current: async () => expectResult("document:current", await call("document:current")) as HostDocument,
    layer: async (name) => {
      const found = flatten(expectResult("document:layers", await call("document:layers")) as HostLayer[]).find((l) => l.name === name);
      if (found === undefined) throw new Error(`no layer named ${name}`);
      return found;
    },
    supports: async (method, params = {}) => {
      if (edits[method] !== undefined) return true;
      const outcome = await call(method, params);
      expect(outcome.error?.code).toBe("NOT_SUPPORTED");
      expect(outcome.error?.details).toMatchObject({ editor: editor.name, capability: method });
      return false;
    },
    honours: async (method, field, params) => {
      if (!(edits[method]?.unsupported ?? []).includes(field)) return true;
      const outcome = await call(method, params);
      expect(outcome.error?.code).toBe("NOT_SUPPORTED");
      expect(outcome.error?.details).toMatchObject({ editor: editor.name, capability: method, field });
      return false;
    },
  };
}

/** Decoded RGBA pixels of an `image:export…` data URI. */
export async function decodeExport(result: unknown): Promise<{ data: Buffer; width: number; height: number; at(x: number, y: number): number[] }> {
  const uri = (result as { data: string }).data;
  const { data, info } = await sharp(Buffer.from(uri.split(",")[1]!, "base64")).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, at: (x, y) => [...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 4)] };
}

/** The composite of the active document, decoded. */
export async function exportComposite(s: EditSession): ReturnType<typeof decodeExport> {
  return decodeExport(expectResult("image:exportDocument", await s.call("image:exportDocument", { format: "png" })));
}

/** What `paintedComposite` answers on an editor that paints nothing: no pixels, none of them read. */
const UNPAINTED: Awaited<ReturnType<typeof decodeExport>> = { data: Buffer.alloc(0), width: 0, height: 0, at: () => [] };

/**
 * The composite for pixel checks that only run where the editor paints (`if (s.paints) …`): on an editor that
 * paints nothing (the fake Photoshop) no pixel of it is compared, so it is not exported.
 */
export async function paintedComposite(s: EditSession): ReturnType<typeof decodeExport> {
  return s.paints ? exportComposite(s) : UNPAINTED;
}

/** Expects a refused call with `code`, and the document left at `revision`. */
export async function expectRefused(s: EditSession, outcome: Outcome, code: string, revision: number): Promise<void> {
  expect(outcome.ok).toBe(false);
  expect(outcome.error?.code).toBe(code);
  expect((await s.current()).revision).toBe(revision);
}
