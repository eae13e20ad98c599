import { resolveClientPath } from "../files/index.js";
import { BridgeError, toProtocolError, type HostLayer, type MethodParams, type TemplateVariant } from "../protocol/index.js";
import { type CallCancelSignal, type CallOthers, defineMethod, type MethodContext, type MethodDefinition } from "./define.js";
import { withImages } from "./image-result.js";

/*
 * `template:render` runs each variant as ordinary method calls, by name, through the bridge's own dispatch, as a
 * client sending them one by one would: open a copy of the template, apply the comp, the visibility, the text, the
 * images, the fills and the extra edits, export, close. Variants run in parallel, one at a time per editor, so the
 * job holds at most one call in each editor's mailbox (on the caller's lane, which the mailbox serves in turn with
 * the others'). One variant's failure is its own entry in the answer; the others go on.
 */

type Params = MethodParams<"template:render">;

/** One variant's entry in the answer. */
interface VariantOutcome {
  readonly id: string;
  readonly ok: boolean;
  readonly path?: string;
  readonly image?: unknown;
  readonly error?: unknown;
}

/** Methods a variant's `edits` may not call: they would run a job inside the job. */
const NOT_AN_EDIT = new Set(["template:render", "batch", "request:cancel"]);

/** `{name}` placeholders of an output path. */
const PLACEHOLDER = /\{([^{}]*)\}/g;

/**
 * The output path of each variant, its placeholders filled from the variant's `id` and `vars`.
 * @throws BridgeError `BAD_REQUEST` naming the variant and the placeholder when a placeholder has no value
 */
export function fillOutputPaths(pattern: string, variants: readonly TemplateVariant[], ids: readonly string[]): string[] {
  return variants.map((variant, index) =>
    pattern.replace(PLACEHOLDER, (_, name: string) => {
      if (name === "id") return ids[index]!;
      const value = variant.vars?.[name];
      if (value === undefined) {
        throw new BridgeError("BAD_REQUEST", `The output path's placeholder {${name}} has no value for variant ${ids[index]}: give it in vars, or use {id}`, {
          details: { placeholder: name, variant: ids[index], vars: Object.keys(variant.vars ?? {}) },
        });
      }
      return value;
    }),
  );
}

/** Every layer of a tree, depth first, groups included. */
function flatten(layers: readonly HostLayer[], into: HostLayer[] = []): HostLayer[] {
  for (const layer of layers) {
    into.push(layer);
    if (layer.children !== undefined) flatten(layer.children, into);
  }
  return into;
}

/** The names a template's layers have, each once, for the error of a name that picks none or several. */
function namesOf(layers: readonly HostLayer[]): string[] {
  return [...new Set(layers.map((layer) => layer.name))];
}

/**
 * The one layer named `name`.
 * @throws BridgeError `LAYER_NOT_FOUND` when none or several have the name, listing the names there are
 */
function layerNamed(layers: readonly HostLayer[], name: string, documentId: number): HostLayer {
  const found = layers.filter((layer) => layer.name === name);
  if (found.length === 1) return found[0]!;
  const names = namesOf(layers);
  const message =
    found.length === 0
      ? `The template has no layer named ${JSON.stringify(name)}; its layers: ${names.map((n) => JSON.stringify(n)).join(", ")}`
      : `${found.length} layers of the template are named ${JSON.stringify(name)}: rename them so the name picks one`;
  throw new BridgeError("LAYER_NOT_FOUND", message, {
    details: { name, documentId, matches: found.map((layer) => layer.id), names },
  });
}

/** Whether a `visible` key is a name pattern (when no layer has it as its name): `*` any run of characters, `?` one. */
function isNamePattern(key: string): boolean {
  return key.includes("*") || key.includes("?");
}

/** A name pattern as a regular expression matching whole names, case-sensitive; every other character stands for itself. */
export function namePattern(pattern: string): RegExp {
  const source = [...pattern].map((c) => (c === "*" ? "[\\s\\S]*" : c === "?" ? "[\\s\\S]" : c.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&"))).join("");
  return new RegExp(`^${source}$`, "u");
}

/**
 * The layers a `visible` key addresses: the one layer with that name; else, for a key with `*` or `?`, every layer
 * whose whole name the pattern matches.
 * @throws BridgeError `LAYER_NOT_FOUND` when the key picks no layer (listing the names there are), or is a name several have
 */
function layersAddressed(layers: readonly HostLayer[], key: string, documentId: number): HostLayer[] {
  if (!isNamePattern(key) || layers.some((layer) => layer.name === key)) return [layerNamed(layers, key, documentId)];
  const pattern = namePattern(key);
  const found = layers.filter((layer) => pattern.test(layer.name));
  if (found.length > 0) return found;
  const names = namesOf(layers);
  throw new BridgeError(
    "LAYER_NOT_FOUND",
    `No layer of the template has a name matching the pattern ${JSON.stringify(key)}; its layers: ${names.map((n) => JSON.stringify(n)).join(", ")}`,
    { details: { name: key, pattern: true, documentId, matches: [], names } },
  );
}

/** Checks the whole call before any variant runs; answers each variant's id and output path. */
async function plan(ctx: MethodContext, params: Params): Promise<{ ids: string[]; paths: (string | undefined)[] }> {
  const limits = ctx.bridge.limits;
  const { variants } = params;
  if (variants.length > limits.maxTemplateVariants) {
    throw new BridgeError("BAD_REQUEST", `A template render may carry at most ${limits.maxTemplateVariants} variants, got ${variants.length}: split the table`, {
      details: { limit: limits.maxTemplateVariants, variants: variants.length },
    });
  }
  const pattern = params.output?.path;
  if (pattern === undefined && variants.length > limits.maxInlineTemplateVariants) {
    throw new BridgeError(
      "BAD_REQUEST",
      `At most ${limits.maxInlineTemplateVariants} variants are answered inline, got ${variants.length}: give output.path to write files instead`,
      { details: { limit: limits.maxInlineTemplateVariants, variants: variants.length } },
    );
  }
  for (const [index, variant] of variants.entries()) {
    const refused = variant.edits?.find((edit) => NOT_AN_EDIT.has(edit.method));
    if (refused !== undefined) {
      throw new BridgeError("BAD_REQUEST", `Variant ${index}'s edits may not call ${refused.method}`, { details: { variant: index, method: refused.method } });
    }
  }
  const ids = variants.map((variant, index) => variant.id ?? String(index + 1));
  if (pattern === undefined) return { ids, paths: variants.map(() => undefined) };
  const filled = fillOutputPaths(pattern, variants, ids);
  const filesystem = ctx.host.filesystem ?? "local";
  const seen = new Map<string, string>();
  for (const [index, path] of filled.entries()) {
    const resolved = (await resolveClientPath(ctx.bridge.files.policy, path, { purpose: "write", filesystem })).path;
    const other = seen.get(resolved);
    if (other !== undefined) {
      throw new BridgeError("BAD_REQUEST", `Variants ${other} and ${ids[index]} would both write ${path}: put {id} or a var that differs in output.path`, {
        details: { path: resolved, variants: [other, ids[index]] },
      });
    }
    seen.set(resolved, ids[index]!);
  }
  return { ids, paths: filled };
}

/** The params of `layer:replaceContents` for an image source: a string is the `image` itself. */
function imageParams(source: string | Record<string, unknown>): Record<string, unknown> {
  return typeof source === "string" ? { image: source } : source;
}

/** Runs one variant on a fresh copy of the template, closed after whatever happens. */
async function renderVariant(
  dispatch: CallOthers,
  params: Params,
  variant: TemplateVariant,
  outputPath: string | undefined,
  editorId: string | undefined,
  cancel: CallCancelSignal | undefined,
): Promise<{ path?: string; image?: unknown }> {
  // Each step checks the cancel before it starts: an editor's mailbox refuses a cancelled call, but reads it answers
  // from what it holds and methods that run off the editors would not.
  const call = (name: string, p: Record<string, unknown>): Promise<unknown> => {
    if (cancel?.aborted === true) return Promise.reject(cancelledBefore(name));
    return dispatch.call(name, p, { editorId, cancel });
  };
  const template = params.template;
  // The copy is made whatever the cancel: an open cancelled while running could still leave a document nobody knows
  // to close. It is closed below as soon as it exists.
  const opened = (
    "path" in template
      ? await dispatch.call("document:open", { path: template.path }, { editorId })
      : await dispatch.call("document:duplicate", { documentId: template.documentId }, { editorId })
  ) as { id: number };
  const documentId = opened.id;
  try {
    if (variant.comp !== undefined) await call("layerComp:apply", { documentId, name: variant.comp });
    const named = [variant.visible, variant.text, variant.images, variant.fills].some((map) => map !== undefined && Object.keys(map).length > 0);
    const layers = named ? flatten((await call("document:layers", { documentId })) as HostLayer[]) : [];
    const layerId = (name: string): number => layerNamed(layers, name, documentId).id;
    for (const [key, visible] of Object.entries(variant.visible ?? {})) {
      for (const layer of layersAddressed(layers, key, documentId)) await call("layer:update", { documentId, layerId: layer.id, visible });
    }
    for (const [name, text] of Object.entries(variant.text ?? {})) await call("layer:updateText", { documentId, layerId: layerId(name), text });
    for (const [name, source] of Object.entries(variant.images ?? {})) {
      await call("layer:replaceContents", { ...imageParams(source), documentId, layerId: layerId(name) });
    }
    for (const [name, color] of Object.entries(variant.fills ?? {})) {
      await call("layer:update", { documentId, layerId: layerId(name), fill: { type: "solid", color } });
    }
    for (const edit of variant.edits ?? []) await call(edit.method, { ...edit.params, documentId });
    const { format, quality, scale } = params.output ?? {};
    if (scale !== undefined && scale !== 1) await call("document:resize", { documentId, percent: scale * 100 });
    if (outputPath !== undefined) {
      const written = (await call("document:export", { documentId, path: outputPath, format, quality })) as { path: string };
      return { path: written.path };
    }
    const image = await call("image:exportDocument", { documentId, format: format === "tiff" ? undefined : (format ?? "png"), quality });
    // Kept as it is: a binary connection gets it as a binary part, everyone else as a data URI (see `withImages`).
    return { image };
  } finally {
    // Closed even when cancelled: the copy is the job's own and nobody else will close it.
    await dispatch.call("document:close", { documentId }, { editorId }).catch(() => undefined);
  }
}

/** The error of a variant's step not made because the render was cancelled. */
function cancelledBefore(method: string): BridgeError {
  return new BridgeError("CANCELLED", `The render was cancelled before this variant's ${method}`, { details: { outcome: "not-started", method } });
}

/** The error entry of a variant that failed or never ran, as a failed response's `error`. */
function failure(error: unknown): unknown {
  return toProtocolError(error, { method: "template:render" });
}

async function render(ctx: MethodContext, params: Params): Promise<{ variants: VariantOutcome[] }> {
  const dispatch = ctx.dispatch;
  if (dispatch === undefined) throw new BridgeError("NOT_SUPPORTED", "template:render runs other methods, and this caller cannot", { details: { capability: "dispatch" } });
  const { ids, paths } = await plan(ctx, params);
  const { variants } = params;
  // A copy of an open document can only be made on its editor; a file opens on any.
  const lanes: (string | undefined)[] = "path" in params.template ? [...dispatch.editors()] : [undefined];
  const width = Math.max(1, Math.min(params.concurrency ?? lanes.length, lanes.length, variants.length));
  const outcomes: VariantOutcome[] = new Array(variants.length);
  const cancel = dispatch.cancel;
  let next = 0;
  let done = 0;
  const worker = async (lane: string | undefined): Promise<void> => {
    while (next < variants.length) {
      const index = next++;
      const id = ids[index]!;
      if (cancel?.aborted === true) {
        outcomes[index] = { id, ok: false, error: failure(new BridgeError("CANCELLED", "The render was cancelled before this variant ran")) };
        continue;
      }
      try {
        const out = await renderVariant(dispatch, params, variants[index]!, paths[index], lane, cancel);
        outcomes[index] = { id, ok: true, ...out };
      } catch (error) {
        outcomes[index] = { id, ok: false, error: failure(error) };
      }
      done += 1;
      dispatch.progress?.(done, variants.length, `${id} ${outcomes[index]!.ok ? "done" : "failed"}`);
    }
  };
  await Promise.all(lanes.slice(0, width).map(worker));
  return withImages({ variants: outcomes });
}

export const templateMethods: readonly MethodDefinition[] = [
  defineMethod("template:render", {
    description:
      "Renders a layered template once per variant (text, images, fill colours and a layer comp by layer name, visibility by name or name pattern, then extra edits) on copies spread over the editors, writing each to a file named from a pattern or answering its image; one variant's failure is its own entry.",
    examples: [
      {
        template: { path: "/work/templates/card.psd" },
        variants: [{ id: "sku-1", text: { Headline: "Spring sale" }, visible: { Badge: true } }],
        output: { path: "/work/out/{id}.png" },
      },
    ],
    host: false,
    // It changes no document of the caller's, but it opens and closes documents and writes files.
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/template/render" },
    run: render,
  }),
];
