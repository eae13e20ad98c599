import { readFile, writeFile } from "node:fs/promises";
import type { HostRect } from "../../protocol/index.js";
import type { HostAdapter, HostCallContext, SelectionOutline, SelectionShape } from "../host.js";
import type { GimpSession } from "./connection.js";
import { asList, asNumber, int, lit, num, type Sexp } from "./scheme.js";

type SelectionOps = Required<Pick<HostAdapter, "getSelection" | "setSelection" | "getSelectionOutline">>;

/** GIMP's selection bounds `(x1 y1 x2 y2)` as a rectangle; `()` is no selection. */
function toRect(bounds: readonly Sexp[]): HostRect | null {
  if (bounds.length < 4) return null;
  const [x1, y1, x2, y2] = bounds.map((v) => asNumber(v, "selection bound")) as [number, number, number, number];
  return { x: x1, y: y1, width: x2 - x1, height: y2 - y1 };
}

/**
 * The `d` attributes of the paths in an SVG document GIMP exported, joined on one line (GIMP breaks them over
 * many); coordinates are image pixels.
 */
function svgPathData(svg: string): string {
  return [...svg.matchAll(/\sd="([^"]*)"/g)]
    .map((m) => m[1]!.replace(/\s+/g, " ").trim())
    .join(" ");
}

/**
 * The selection: its bounds, setting a rectangle, an ellipse or a polygon (hard-edged, as the embedded editor
 * selects them), and its outline traced by GIMP's selection-to-path. `selection:changed` comes from the event poll.
 */
export function selectionOps(session: GimpSession): SelectionOps {
  const { call } = session;

  /** Calls a form answering `(img . bounds)` for `documentId` (or the active image), keeping the image it chose. */
  async function withImage(ctx: HostCallContext, documentId: number | undefined, form: string): Promise<readonly Sexp[]> {
    const [id, ...bounds] = asList(await call(ctx, form), "selection");
    if (documentId === undefined) session.activeImage = asNumber(id, "image id");
    return bounds;
  }

  async function select(ctx: HostCallContext, image: string, shape: SelectionShape): Promise<Sexp> {
    if (shape.kind !== "polygon") {
      const { x, y, width, height } = shape.rect;
      const procedure = shape.kind === "rect" ? "br-set-selection" : "br-select-ellipse";
      return call(ctx, `(${procedure} ${image} ${num(x)} ${num(y)} ${num(width)} ${num(height)})`);
    }
    // The points go through a file: 10 000 of them do not fit in one Script-Fu request.
    return session.scratch(".scm", async (file) => {
      await writeFile(file, `(${shape.points.map((p) => `${num(p.x)} ${num(p.y)}`).join(" ")})`);
      return call(ctx, `(br-select-polygon ${image} ${lit(file)})`);
    });
  }

  return {
    async getSelection(ctx, documentId): Promise<HostRect | null> {
      return toRect(await withImage(ctx, documentId, `(br-selection-of ${session.image(documentId)})`));
    },

    async setSelection(ctx, { documentId, shape }): Promise<HostRect | null> {
      if (shape === null) return toRect(asList(await call(ctx, `(br-set-selection ${int(documentId)} 0 0 0 0)`), "selection"));
      return toRect(asList(await select(ctx, int(documentId), shape), "selection"));
    },

    async getSelectionOutline(ctx, { documentId, expand }): Promise<SelectionOutline | null> {
      return session.scratch(".svg", async (file) => {
        const form = `(br-selection-path ${session.image(documentId)} ${int(expand)} ${lit(file)})`;
        const box = toRect(await withImage(ctx, documentId, form));
        return box ? { d: svgPathData(await readFile(file, "utf8")), box } : null;
      });
    },
  };
}
