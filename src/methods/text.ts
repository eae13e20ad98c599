import { parseColor } from "../hosts/_internal/color.js";
import { type EditPlace, hasText, type TextSpec } from "../hosts/edits.js";
import type { DocumentTree } from "../hosts/host.js";
import { BridgeError, type LayerText, type MethodParams, POINTS_PER_INCH, type TEXT_ANTI_ALIAS } from "../protocol/index.js";
import { defineMethod, type MethodContext, type MethodDefinition } from "./define.js";
import { editTarget, editedLayer, sendEdit, targetLayer } from "./_internal/edits.js";
import { requireOp } from "./_internal/support.js";

/** The longest name a text layer takes from its text when the caller gives none. */
const TEXT_LAYER_NAME_CHARS = 64;

type CreateParams = MethodParams<"layer:create">;
type UpdateParams = MethodParams<"layer:updateText">;
/** The type settings a call passes, as both methods name them. */
type TextParams = Omit<UpdateParams, "documentId" | "ifRevision" | "layerId" | "layerIndex">;

/** @throws BridgeError `NOT_SUPPORTED {editor, capability: "text"}` from an editor without text layers. */
export function requireText(ctx: MethodContext): void {
  if (hasText(ctx.host.editCapabilities) && typeof ctx.host.edit === "function") return;
  throw new BridgeError("NOT_SUPPORTED", `The ${ctx.host.kind} editor cannot make text layers yet`, {
    details: { editor: ctx.host.kind, capability: "text" },
  });
}

/** An anti-aliasing method from a call: a method's name, or `true` (`smooth`) / `false` (`none`). */
function antiAliasMethod(value: boolean | (typeof TEXT_ANTI_ALIAS)[number]): (typeof TEXT_ANTI_ALIAS)[number] {
  return value === true ? "smooth" : value === false ? "none" : value;
}

/** What a text layer is named when the caller gives no name: its first line, as Photoshop names one. */
export function textLayerName(text: string): string {
  const line = text.split("\n").find((l) => l.trim() !== "") ?? "Text";
  return [...line.trim()].slice(0, TEXT_LAYER_NAME_CHARS).join("");
}

/**
 * The settings a text edit sends: the call's fields over `base` (what the layer has; none for a new layer), the
 * defaults for what neither gives. A `position` given drops the layer's `box` and the other way round; a new layer
 * given neither starts its first baseline one em below the canvas's top-left corner.
 * @throws BridgeError `BAD_REQUEST` for a colour it cannot read or, with no base, no text, font or size
 */
export function textSpec(tree: DocumentTree, params: TextParams, base?: LayerText): TextSpec {
  const text = params.text ?? base?.text;
  const font = params.font ?? base?.font;
  const size = params.size ?? base?.size;
  if (text === undefined || font === undefined || size === undefined) {
    throw new BridgeError("BAD_REQUEST", "The editor does not say this layer's text: pass text, font and size", {
      details: { missing: [text === undefined && "text", font === undefined && "font", size === undefined && "size"].filter(Boolean) },
    });
  }
  const color = parseColor(params.color ?? base?.color ?? "#000000", "color");
  const placed = params.position !== undefined || params.box !== undefined;
  const position = placed ? params.position : base?.position;
  const box = placed ? params.box : base?.box;
  const pixelsPerPoint = tree.document.resolution / POINTS_PER_INCH;
  return {
    text,
    font,
    size,
    color,
    ...(box !== undefined ? { box } : { position: position ?? { x: 0, y: Math.round(size * pixelsPerPoint) } }),
    alignment: params.alignment ?? base?.alignment ?? "left",
    leading: params.leading ?? base?.leading,
    tracking: params.tracking ?? base?.tracking ?? 0,
    baselineShift: params.baselineShift ?? base?.baselineShift,
    antiAlias: antiAliasMethod(params.antiAlias ?? base?.antiAlias ?? true),
    direction: params.direction ?? base?.direction,
    script: params.script ?? base?.script,
    language: params.language ?? base?.language,
  };
}

/** `layer:create {kind: "text"}`: a new text layer where the place says, named after its text unless named. */
export async function createTextLayer(ctx: MethodContext, tree: DocumentTree, params: CreateParams, place: EditPlace) {
  const spec = textSpec(tree, params as TextParams);
  const name = params.name ?? textLayerName(spec.text);
  const outcome = await sendEdit(ctx, tree, { op: "layer:create", kind: "text", name, text: spec, place });
  return editedLayer(ctx, tree.document.id, outcome.layerId!, outcome);
}

/** Text layers' own methods: change one's text and settings, and list the fonts an edit may name. */
export const textMethods: MethodDefinition[] = [
  defineMethod("layer:updateText", {
    description:
      "Changes a text layer's `text` (`\\n` breaks lines), `font`, `size` (points), `color`, `position` or `box`, `alignment`, `leading` (points), `tracking` (1/1000 em), `baselineShift` (points, up), `antiAlias` (`none`, `sharp`, `crisp`, `strong`, `smooth`; `true` is `smooth`, `false` `none`), `direction`, `script` or `language`; fields left out stay as they are. The editor draws it again. An unknown font is `FONT_NOT_FOUND` with the closest names in `details.near`. Answers the layer with its bounds.",
    examples: [{ layerId: 3, text: "Now 20% off" }, { layerId: 3, font: "NotoSans-Bold", size: 36, color: "#c00000" }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer/update-text" },
    run: async (ctx, params) => {
      requireText(ctx);
      const tree = await editTarget(ctx, "layer:updateText", params);
      const layer = targetLayer(tree, params);
      if (layer.kind !== "text") {
        throw new BridgeError("BAD_REQUEST", `Layer ${layer.id} is a ${layer.kind} layer, not a text layer`, { details: { layerId: layer.id, kind: layer.kind } });
      }
      const outcome = await sendEdit(ctx, tree, { op: "layer:updateText", layerId: layer.id, text: textSpec(tree, params, layer.text) });
      return editedLayer(ctx, tree.document.id, layer.id, outcome);
    },
  }),
  defineMethod("font:list", {
    description:
      "The fonts text layers may name on the editor: each font's `family`, `style` and `postScriptName` (any of the PostScript name, `<family> <style>` or the family alone names it).",
    examples: [{}],
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/fonts" },
    run: async (ctx) => ({ fonts: await requireOp(ctx.host, "listFonts", "text")(ctx.call) }),
  }),
];
