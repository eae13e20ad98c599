import { requireLayer } from "../tree.js";
import type { EditHandlers } from "./context.js";
import { mirror, multiply, newWork, planLayer, rotation, runWork } from "./geometry.js";

/**
 * `layer:transform`: scale, rotate, flip and move one layer. The layer (a group: every layer in it) and its linked
 * masks go through `p → anchor + move + F·R·S·(p − anchor)`: scaled by sharp, turned by quarter turns exactly or
 * resampled otherwise (see `geometry.ts`); a pure move shifts pixels by whole pixels without resampling.
 */
export const transformEdits: EditHandlers = {
  "layer:transform": async (context, edit) => {
    const { doc } = context;
    const entry = requireLayer(doc, edit.layerId);
    const sx = edit.scaleX / 100;
    const sy = edit.scaleY / 100;
    const q = multiply(mirror(edit.flip), rotation(edit.angle));
    const { x: ax, y: ay } = edit.anchor;
    // anchor + d + Q·S·(p − anchor) = Q·S·p + t.
    const tx = ax + edit.dx - (q[0] * sx * ax + q[1] * sy * ay);
    const ty = ay + edit.dy - (q[2] * sx * ax + q[3] * sy * ay);
    const work = newWork();
    planLayer(work, entry.layer, entry.siblings, { sx, sy, q, tx, ty, resample: edit.resample }, "linked");
    const check = (): void => context.checkpoint(context.call);
    await runWork(work, { what: `Transforming ${entry.layer.name}`, maxPixels: context.maxDocumentPixels, memory: context.memory }, check);
    context.changed(doc, { pixels: true, layers: true });
    return undefined;
  },
};
