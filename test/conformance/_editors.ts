import { afterAll, it } from "vitest";
import type { BridgeOptions } from "../../src/bridge/options.js";
import { keepForSuite, type Harness } from "../helpers/bridge.js";
import { TRANSPORTS } from "./_transports.js";
import { embedded, embeddedPool } from "./editors/embedded.js";
import { gimp, gimpPool } from "./editors/gimp.js";
import { photoshop } from "./editors/photoshop.js";

/**
 * One editor the conformance suite runs against (every host that is present, the embedded one
 * always). Each `start()` gives an independent bridge whose editor shows the sample document: a document
 * with at least one group, a few pixel layers and no selection.
 */
export interface ConformanceEditor {
  readonly name: "embedded" | "photoshop" | "gimp";
  /** How test titles name it: the editor, and how many when the bridge runs a pool (`embedded ×3`). */
  readonly label: string;
  /** How many editors the bridge runs (a pool when more than one). */
  readonly editors: number;
  /** Why the suite skips this editor here (e.g. GIMP is not installed); undefined when it runs. */
  readonly skip: string | undefined;
  /** Starts a bridge on this editor; it is stopped after the test like any other harness. */
  start(options?: BridgeOptions): Promise<Harness>;
  /** Name of the sample document `start()` opens. */
  readonly sampleName: string;
  /**
   * Whether exports show the pixels an edit paints. The fake Photoshop models the layer tree, sizes and selections
   * but paints nothing, so edit cases check its tree and leave the pixels to the editors that paint.
   */
  readonly paints: boolean;
  /** Case names this editor cannot model, each with the reason (the case is skipped and says so). */
  readonly lacks: Readonly<Record<string, string>>;
}

export const EDITORS: readonly ConformanceEditor[] = [embedded, embeddedPool, photoshop, gimp, gimpPool];

/**
 * The editors conformance runs against when `BRIDGE_TEST_EDITORS` names some (comma-separated editor names, e.g.
 * `embedded` for `npm run test:quick`); every editor otherwise.
 */
const CHOSEN = process.env["BRIDGE_TEST_EDITORS"]?.split(",").map((name) => name.trim());

/** The editors that run here; skipped ones are reported once with their reason. */
export function presentEditors(): readonly ConformanceEditor[] {
  const chosen = EDITORS.filter((e) => CHOSEN === undefined || CHOSEN.includes(e.name));
  for (const editor of chosen) {
    if (editor.skip !== undefined) console.warn(`conformance: ${editor.label} editor skipped: ${editor.skip}`);
  }
  return chosen.filter((e) => e.skip === undefined);
}

/**
 * A conformance file's rows: every present editor over every transport (`ws on gimp`, `http on gimp`, …). The GIMP
 * pool (`gimp ×2`) is a row only where a file asks for it (`gimpPool: true`): the files where documents are created,
 * opened, saved and exported (methods, files, saves), which the pool places on and finds among two real GIMPs.
 * Elsewhere every call goes to the sample document's GIMP by the pool's routing, which does not depend on the
 * editor and which the `embedded ×3` row checks case for case; running those cases again on two GIMPs cost minutes
 * per file (docs/testing.md, "Keeping the suite fast").
 */
export function conformanceMatrix(options: { gimpPool?: boolean } = {}) {
  return presentEditors()
    .filter((editor) => options.gimpPool === true || !(editor.name === "gimp" && editor.editors > 1))
    .flatMap((editor) => TRANSPORTS.map((transport) => ({ editor, transport, label: `${transport.name} on ${editor.label}` })));
}

/** `it` for one editor: a case the editor lacks is skipped with its reason in the title. */
export function itFor(editor: ConformanceEditor): (title: string, fn: () => Promise<void>) => void {
  return (title, fn) => {
    const reason = editor.lacks[title];
    if (reason === undefined) it(title, fn);
    else it.skip(`${title} (not on ${editor.label}: ${reason})`, fn);
  };
}

/**
 * The bridges of one `describe`'s cases on `editor`, each with what `make` builds on it (a transport, a client).
 * `fresh()` gives a case a bridge of its own, closed after it: every case that changes anything. `reading()` gives
 * the describe's reading cases one bridge between them, for cases that only read the sample (documents, layers,
 * previews, exports to data URIs) and change nothing: on GIMP a bridge's start closes every image and rebuilds the
 * sample through Script-Fu. The shared bridge is started by the first reading case and closed before the next
 * `fresh()` (the two would share the editor) and after the describe, so reading cases go first in a describe.
 * Call it in the `describe`'s body.
 */
export function bridgesFor<T>(editor: ConformanceEditor, make: (harness: Harness) => Promise<T>): { fresh(): Promise<T>; reading(): Promise<T> } {
  let shared: Promise<{ made: T; close: () => Promise<void> }> | undefined;
  const closeShared = async (): Promise<void> => {
    const open = shared;
    shared = undefined;
    await open?.then(({ close }) => close(), () => {});
  };
  afterAll(closeShared);
  return {
    async fresh() {
      await closeShared();
      return make(await editor.start());
    },
    async reading() {
      shared ??= (async () => {
        const harness = await editor.start();
        const close = keepForSuite(harness);
        try {
          return { made: await make(harness), close };
        } catch (error) {
          await close();
          throw error;
        }
      })();
      return (await shared).made;
    },
  };
}
