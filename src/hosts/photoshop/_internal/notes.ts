import type { Logger } from "../../../logger.js";
import type { NotesHandler } from "../envelope.js";

/**
 * Distinct script notes logged at warn level; repeats and any past this many go to debug, so a document a script
 * always falls back on does not flood the log.
 */
export const MAX_WARNED_NOTES = 32;

/** Logs what the operation scripts note beside their answers (what they fell back on, and why). */
export function noteLogger(log: Logger): NotesHandler {
  const warned = new Set<string>();
  return (operation, notes) => {
    for (const note of notes) {
      const first = !warned.has(note) && warned.size < MAX_WARNED_NOTES;
      if (first) warned.add(note);
      log[first ? "warn" : "debug"]({ actor: "host", editor: "photoshop", operation, note }, "Photoshop script note");
    }
  };
}
