import type { FileAccess } from "../../files/index.js";
import type { Logger } from "../../logger.js";
import type { EmbeddedCutoutOptions } from "./cutout/index.js";
import type { RecoveredDocument, RecoveryOptions, RecoveryState } from "./recovery.js";
import type { ScriptLimits } from "./scripts/index.js";

/** `hostVersion` the embedded editor reports. */
export const EMBEDDED_HOST_VERSION = "embedded 0.1.0";

/** Options of `createEmbeddedHost`. */
export interface EmbeddedHostOptions {
  /**
   * Start with the generated sample document (ignored when `open` is set).
   * @default true
   */
  readonly sample?: boolean | undefined;
  /** A `.psd`, `.png`, `.jpg`/`.jpeg` or `.webp` file to open at start instead of the sample. */
  readonly open?: string | undefined;
  /**
   * Largest document (width × height) a file may hold to be opened, or a script may create, and largest layer
   * (width × height) a file, an import or a script's fill may hold; bounds memory (4 bytes per pixel per layer)
   * whatever a file header declares.
   * @default DEFAULT_MAX_DOCUMENT_PIXELS (100 000 000)
   */
  readonly maxDocumentPixels?: number | undefined;
  /**
   * Deepest nesting of layer groups a PSD may have to be opened; deeper files are refused with `BAD_REQUEST`
   * (`details: { depth, max }`) before their pixels are read.
   * @default DEFAULT_MAX_PSD_GROUP_DEPTH (100)
   */
  readonly maxPsdGroupDepth?: number | undefined;
  /**
   * Memory budget of the editor: every document, layer, import and decoded image is charged before it is
   * allocated, from header sizes, and refused with `PAYLOAD_TOO_LARGE` (`details.limit: "editorMemoryBudgetBytes"`)
   * when it would not fit. Closing documents gives it back.
   * @default DEFAULT_LIMITS.editorMemoryBudgetBytes (derived from the machine's memory)
   */
  readonly memoryBudgetBytes?: number | undefined;
  /** Most undo steps kept per document; the oldest go first. @default DEFAULT_HISTORY_STEPS (100) */
  readonly historySteps?: number | undefined;
  /**
   * Share of the memory budget, in percent, the documents' undo histories may hold together (what they hold beyond
   * the documents themselves); the oldest steps go first. @default DEFAULT_HISTORY_BUDGET_PERCENT (25)
   */
  readonly historyBudgetPercent?: number | undefined;
  /** Script sandbox limits (deadline cap, heap, result size, …). @default DEFAULT_SCRIPT_LIMITS */
  readonly scriptLimits?: Partial<ScriptLimits> | undefined;
  /** Cutout settings (GrabCut refinement, minimum confidence, work size). @default DEFAULT_CUTOUT_OPTIONS */
  readonly cutout?: Partial<EmbeddedCutoutOptions> | undefined;
  /**
   * Folders of fonts (OpenType, TrueType, collections) text layers may use besides the machine's (`--fonts-dir`),
   * searched first. @default none
   */
  readonly fontsDirs?: readonly string[] | undefined;
  /** Use the machine's fonts (fontconfig's folders); off, only `fontsDirs`. @default true */
  readonly systemFonts?: boolean | undefined;
  /** Where cutout confidences are logged. @default none */
  readonly logger?: Logger | undefined;
  /**
   * File rules for `--open` and for scripts' `app.open`, `save` and `exportDocument`: files roots, backups, read
   * limits. The bridge passes its own; alone, the editor is unconfined with backups on.
   * @default unconfined, backups on, DEFAULT_MAX_OPEN_FILE_BYTES
   */
  readonly files?: FileAccess | undefined;
  /**
   * Id of the first document this editor opens; an editor restarted after a crash continues past its
   * predecessor's ids, so no id is ever reused.
   * @default 1
   */
  readonly firstDocumentId?: number | undefined;
  /** Called with the open document ids and the next id whenever the set of open documents changes. @default none */
  readonly onDocumentsChange?: ((ids: number[], nextId: number) => void) | undefined;
  /**
   * Keep recovery copies of the open documents in this private folder (see `recovery.ts`), so that an editor
   * started after this one was lost finds them back. @default none
   */
  readonly recovery?: RecoveryOptions | undefined;
  /**
   * Documents a lost editor had open, reopened from `recovery.dir` by `connect()` under their ids (instead of the
   * sample or `open`). @default none
   */
  readonly recover?: readonly number[] | undefined;
  /** Told, once `connect()` has reopened `recover`, what came back. @default none */
  readonly onRecovered?: ((documents: RecoveredDocument[]) => void) | undefined;
  /** Told whether each open document's recovery copy holds its latest change, whenever that changes. @default none */
  readonly onRecoveryState?: ((state: RecoveryState) => void) | undefined;

}
