import type { LayerRef } from "../../hosts/host.js";
import type { LayerSpec } from "../../protocol/index.js";

/** `layerId` or `layerIndex` (validated to be at most one), else the active layer. */
export function layerRefOf(params: { layerId?: number | undefined; layerIndex?: number | undefined }): LayerRef {
  if (params.layerId !== undefined) return { by: "id", id: params.layerId };
  if (params.layerIndex !== undefined) return { by: "index", index: params.layerIndex };
  return { by: "active" };
}

/** A preview's `layerSpec`: a layer id, `"current"`, `"id:N"` or `"index:N"`. */
export function layerRefOfSpec(spec: LayerSpec): LayerRef {
  if (typeof spec === "number") return { by: "id", id: spec };
  if (spec === "current") return { by: "active" };
  const [kind, value] = spec.split(":") as [string, string];
  return kind === "id" ? { by: "id", id: Number(value) } : { by: "index", index: Number(value) };
}
