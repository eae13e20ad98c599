import type { SelectionPath } from "../../protocol/index.js";

/**
 * `SelectionPath.svg` is a standalone SVG document on every editor (DESIGN §3): its `viewBox` is the outline's
 * bounding box in document pixels, so it renders as is and its path can be placed back on the document.
 */
export function toSelectionPath(d: string, box: { x: number; y: number; width: number; height: number }): SelectionPath {
  const { x, y, width, height } = box;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="${x} ${y} ${width} ${height}">` +
    `<path d="${d}" fill-rule="evenodd"/></svg>`;
  return { svg, x, y, width, height };
}
