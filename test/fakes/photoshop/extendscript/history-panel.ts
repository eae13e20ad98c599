/**
 * The History panel of a fake document, as the Photoshop JavaScript Reference describes it: `Document.historyStates`
 * lists the document's snapshot (`HistoryState.snapshot` true, taken when it was opened) and then its states, the
 * first the document as opened; `Document.activeHistoryState` is the selected state, and setting it to another
 * brings the document back to what that state left, the later states staying until the next change replaces them.
 * Photoshop keeps `HISTORY_STATES` states (its "History States" preference, 50 by default), dropping the oldest.
 */
import type { FakeDocument } from "../model.js";

/** Photoshop's default "History States" preference. */
export const HISTORY_STATES = 50;

/**
 * What a state brings back (the layer comps too: making, changing and deleting a comp are steps of the History panel;
 * and the global light, which the Layer Style dialog changes in the same step as a style).
 */
type Kept = Pick<FakeDocument, "selection" | "paths" | "layers" | "active" | "width" | "height" | "resolution" | "comps" | "globalLight">;

export interface PanelState {
  readonly name: string;
  readonly kept: Kept;
  readonly snapshot: boolean;
}

export interface Panel {
  readonly snapshot: PanelState;
  readonly states: PanelState[];
  /** Index of the active state in `states`, or -1 when the snapshot is active. */
  active: number;
}

const panels = new WeakMap<FakeDocument, Panel>();

/** What the document holds now, as a state keeps it. */
export function keep(d: FakeDocument): Kept {
  return structuredClone({ selection: d.selection, paths: d.paths, layers: d.layers, active: d.active, width: d.width, height: d.height, resolution: d.resolution, comps: d.comps, globalLight: d.globalLight });
}

/** The panel of a document: opened with its first state ("Open") and snapshot, from `opened` or the document now. */
export function panelOf(d: FakeDocument, opened: Kept = keep(d)): Panel {
  let panel = panels.get(d);
  if (panel === undefined) {
    panel = { snapshot: { name: d.name, kept: opened, snapshot: true }, states: [{ name: "Open", kept: opened, snapshot: false }], active: 0 };
    panels.set(d, panel);
  }
  return panel;
}

/** A change made a state: the states after the active one go, the oldest go past `HISTORY_STATES`. */
export function addState(d: FakeDocument, name: string, before?: Kept): void {
  const panel = panelOf(d, before);
  panel.states.length = panel.active + 1;
  panel.states.push({ name, kept: keep(d), snapshot: false });
  while (panel.states.length > HISTORY_STATES) panel.states.shift();
  panel.active = panel.states.length - 1;
}

/** Every entry of `Document.historyStates`: the snapshot, then the states. */
export function entries(d: FakeDocument): PanelState[] {
  const panel = panelOf(d);
  return [panel.snapshot, ...panel.states];
}

/** The active entry. */
export function activeEntry(d: FakeDocument): PanelState {
  const panel = panelOf(d);
  return panel.active < 0 ? panel.snapshot : panel.states[panel.active]!;
}

/** Setting `Document.activeHistoryState`: the document becomes what that state left. */
export function activate(d: FakeDocument, entry: PanelState): boolean {
  const panel = panelOf(d);
  const at = entry === panel.snapshot ? -1 : panel.states.indexOf(entry);
  if (at < 0 && entry !== panel.snapshot) return false;
  panel.active = at;
  Object.assign(d, structuredClone(entry.kept));
  d.dirty = true;
  return true;
}
