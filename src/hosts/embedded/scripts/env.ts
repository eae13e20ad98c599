import type { DocumentStore } from "../store.js";
import type { EmbeddedEvents } from "../events.js";
import type { HostAdapter } from "../../host.js";
import type { FileAccess } from "../../../files/index.js";
import type { EditorMemory } from "../memory.js";

/** What the script API works on. */
export interface ScriptEnv {
  readonly store: DocumentStore;
  readonly events: EmbeddedEvents;
  /** The editor itself, for file operations (open, save, export) that are async. */
  readonly host: HostAdapter;
  /** The bridge's file rules: script paths resolve against the same files roots as clients' paths. */
  readonly files: FileAccess;
  /** The editor's memory budget: documents and pixels a script makes are charged before they are allocated. */
  readonly memory: EditorMemory;
  /** Largest document a script may create (the host's `maxDocumentPixels`). */
  readonly maxDocumentPixels: number;
}
