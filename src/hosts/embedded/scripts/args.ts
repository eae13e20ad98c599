import { z } from "zod";
import { BridgeError, issuesOf } from "../../../protocol/errors.js";
import type { Rgba } from "../../host.js";
import { parseColor } from "../../_internal/color.js";

/*
 * Argument schemas of the script editor API. Every argument is validated (the guest is untrusted); a bad one is a
 * `BAD_REQUEST` the guest can catch.
 */

export const docId = z.number().int().positive();
export const layerId = z.number().int().positive();
export const coordinate = z.number().int().min(-1_000_000).max(1_000_000);
export const DocArgs = z.object({ doc: docId }).strict();
export const LayerArgs = z.object({ doc: docId, layer: layerId }).strict();
export const ColorArg = z.union([
  z.string().max(32),
  z.array(z.number().int().min(0).max(255)).min(3).max(4),
  z.object({ r: z.number(), g: z.number(), b: z.number(), a: z.number().optional() }).strict(),
]);
export const filePath = z.string().min(1).max(4096);
export const RectArg = z.object({ x: z.number(), y: z.number(), width: z.number().min(0), height: z.number().min(0) }).strict();

/** The arguments of `op`, checked. @throws BridgeError `BAD_REQUEST` naming the op and the issues. */
export function parse<T>(schema: z.ZodType<T>, op: string, args: unknown): T {
  const result = schema.safeParse(args ?? {});
  if (!result.success) {
    throw new BridgeError("BAD_REQUEST", `Invalid arguments to ${op}`, { details: { op, issues: issuesOf(result.error) } });
  }
  return result.data;
}

/** A colour argument as bytes: a CSS-like string, `[r, g, b, a?]` or `{r, g, b, a?}` (channels clamped). */
export function toRgba(color: z.infer<typeof ColorArg>): Rgba {
  if (typeof color === "string") return parseColor(color);
  const byte = (v: number): number => Math.min(255, Math.max(0, Math.round(v)));
  if (Array.isArray(color)) return [byte(color[0] ?? 0), byte(color[1] ?? 0), byte(color[2] ?? 0), byte(color[3] ?? 255)];
  return [byte(color.r), byte(color.g), byte(color.b), byte(color.a ?? 255)];
}
