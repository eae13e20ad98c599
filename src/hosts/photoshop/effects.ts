import { BridgeError } from "../../protocol/index.js";
import { EFFECT_NAMES, type ResolvedEffects } from "../../protocol/effects.js";
import type { EditOp } from "../edits.js";

/** The capability `NOT_SUPPORTED` names for a setting of a layer effect Photoshop is not asked to make. */
const CAPABILITY = "layer effects";

type Rgba = readonly [number, number, number, number];

/**
 * What of a layer's effects Photoshop's Layer Style descriptor does not take from the typed settings, refused before
 * the script runs: a colour with alpha (an effect's colour is opaque: its opacity is the effect's). A field of a list
 * is named with its place (`effects.stroke.1.color`) when the kind has several. Gradients take every interpolation,
 * as fill layers' do (`gradientsInterpolationMethod`, Photoshop 2022 and later; classic writes no key).
 * @throws BridgeError `NOT_SUPPORTED` `{editor: "photoshop", capability: "layer effects", field}`
 */
export function checkEffects(edit: EditOp): void {
  if (edit.op !== "layer:setEffects") return;
  const refuse = (field: string, message: string): never => {
    throw new BridgeError("NOT_SUPPORTED", message, { details: { editor: "photoshop", capability: CAPABILITY, field } });
  };
  const opaque = (color: Rgba, field: string): void => {
    if (color[3] !== 255) refuse(field, `An effect's colour is opaque in Photoshop: set the effect's opacity instead (${field})`);
  };
  const effects: ResolvedEffects = edit.effects;
  for (const kind of EFFECT_NAMES) {
    const value = effects[kind];
    if (value === undefined) continue;
    const list: readonly Record<string, unknown>[] = Array.isArray(value) ? value : [value];
    list.forEach((e, i) => {
      const at = list.length > 1 ? `effects.${kind}.${i}` : `effects.${kind}`;
      if (kind === "bevel") {
        const bevel = e as unknown as NonNullable<ResolvedEffects["bevel"]>;
        opaque(bevel.highlight.color, `${at}.highlight.color`);
        opaque(bevel.shadow.color, `${at}.shadow.color`);
      } else if (kind === "gradientOverlay") {
        // Nothing refused: a gradient's colours carry their own opacity stops.
      } else if (kind === "stroke") {
        const { fill } = e as unknown as NonNullable<ResolvedEffects["stroke"]>[number];
        if (fill.type === "color") opaque(fill.color, `${at}.color`);
      } else {
        opaque(e["color"] as Rgba, `${at}.color`);
      }
    });
  }
}
