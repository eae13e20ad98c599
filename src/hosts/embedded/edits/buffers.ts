/** New pixel and mask buffers of an edit: refused past the editor's limits before anything is allocated. */
import { BridgeError } from "../../../protocol/errors.js";
import type { Reservation } from "../memory.js";
import type { EditContext } from "./context.js";

/**
 * Holds the memory for a new buffer of `width × height` pixels, `bytesPerPixel` each (4 for RGBA, 1 for a mask),
 * until the edit has placed it (release it then, or on failure). `what` names the buffer in messages.
 * @throws BridgeError `PAYLOAD_TOO_LARGE` `{limit: "maxDocumentPixels"}` past the editor's largest layer, or
 * `{limit: "editorMemoryBudgetBytes"}` when the memory budget has no room.
 */
export function reserveBuffer(context: Pick<EditContext, "maxDocumentPixels" | "memory">, what: string, width: number, height: number, bytesPerPixel: number): Reservation {
  const max = context.maxDocumentPixels;
  if (width * height > max) {
    throw new BridgeError("PAYLOAD_TOO_LARGE", `${what} of ${width}×${height} exceeds ${max} pixels`, {
      details: { width, height, maxPixels: max, limit: "maxDocumentPixels" },
    });
  }
  return context.memory.reserve(`${what} of ${width}×${height}`, Math.max(0, width) * Math.max(0, height) * bytesPerPixel, { width, height });
}
