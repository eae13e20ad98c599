/**
 * What a locked layer refuses. `locked` is Photoshop's "lock all": the layer's pixels and position are protected.
 * Refused with `BAD_REQUEST` `{layerId, locked: true}` (the layer that holds the lock, which may be a group holding
 * the edited layer) and nothing changed:
 * - its pixels: fill, clear, merge (of any of the layers merged), rasterize;
 * - its masks: add, delete, apply, change;
 * - its position: move, group, ungroup, and putting a layer into a locked group (create, duplicate, move);
 * - how it blends: opacity, fill opacity and blend mode (Photoshop greys these out on a locked layer).
 * Allowed: renaming, showing or hiding, locking and unlocking (an update that unlocks may change the rest in the
 * same step), duplicating (the copy is locked too) and deleting it.
 */
import { BridgeError } from "../../../protocol/errors.js";
import type { EmbeddedDocument, GroupLayer } from "../document.js";
import { requireLayer } from "../tree.js";
import { ancestorsOf } from "./stack.js";

/** The layer itself when locked, else the innermost locked group holding it, else undefined. */
export function lockHolder(doc: EmbeddedDocument, layerId: number): number | undefined {
  if (requireLayer(doc, layerId).layer.locked === true) return layerId;
  return ancestorsOf(doc, layerId).find((group) => group.locked === true)?.id;
}

function lockedError(holder: number, what: string): BridgeError {
  return new BridgeError("BAD_REQUEST", `Layer ${holder} is locked: unlock it (layer:update locked: false) to ${what}`, {
    details: { layerId: holder, locked: true },
  });
}

/** @throws BridgeError `BAD_REQUEST` `{layerId, locked: true}` when the layer or a group holding it is locked. */
export function checkUnlocked(doc: EmbeddedDocument, layerId: number, what: string): void {
  const holder = lockHolder(doc, layerId);
  if (holder !== undefined) throw lockedError(holder, what);
}

/** @throws BridgeError `BAD_REQUEST` `{layerId, locked: true}` when layers would go into a locked group. */
export function checkOpenGroup(doc: EmbeddedDocument, group: GroupLayer | null): void {
  if (group === null) return;
  const holder = lockHolder(doc, group.id);
  if (holder !== undefined) throw lockedError(holder, "put layers in it");
}
