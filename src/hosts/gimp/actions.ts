import type { HostAdapter } from "../host.js";
import type { GimpSession } from "./connection.js";
import { int } from "./scheme.js";

type ActionOps = Required<Pick<HostAdapter, "autoCutout" | "removeBackground">>;

/**
 * Cutouts with GIMP's own tools (2.10 has no subject detector): `autoCutout` mattes inside a hint (the selection,
 * else the canvas without a 5 % margin, see `br-auto-cutout`); `removeBackground` clears what a flood select from
 * the corner pixel finds and leaves the subject selected.
 */
export function actionOps(session: GimpSession): ActionOps {
  return {
    async autoCutout(ctx, { documentId, layerId }): Promise<boolean> {
      return (await session.call(ctx, `(br-auto-cutout ${int(documentId)} ${int(layerId)})`)) === true;
    },

    async removeBackground(ctx, { documentId, layerId }): Promise<boolean> {
      return (await session.call(ctx, `(br-remove-background ${int(documentId)} ${int(layerId)})`)) === true;
    },
  };
}
