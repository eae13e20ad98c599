import { Subject } from "rxjs";
import { BridgeError, type HistoryChangedEventData } from "../../protocol/index.js";
import type { HistoryAnswer, HostHistoryStep } from "../history.js";
import type { HostAdapter } from "../host.js";
import type { RunOperation } from "./operations.js";
import type { Revisions } from "./revisions.js";

/** What the history needs from the adapter. */
export interface HistoryDeps {
  readonly run: RunOperation;
  readonly revisions: Revisions;
}

/** The method a step's name stands for: the bridge names its states after the method; a person's are Photoshop's own. */
const METHOD_NAME = /^[a-z]+:[A-Za-z]+$/;

/** Photoshop's history as `jsx/history.jsx` reads it: every state's name (0: the oldest kept) and the active one's index. */
interface States {
  readonly names: readonly string[];
  readonly current: number;
}

/**
 * History states the bridge shows as one step (an atomic batch's), known by names, since Photoshop's states have no
 * ids: `prefix`, the names of the states from the oldest kept to the one before the group, and `names`, the group's
 * own (none for a batch under way).
 */
interface Group {
  readonly prefix: readonly string[];
  readonly names: readonly string[];
  readonly name: string;
}

/** What the bridge keeps about one document's history beside Photoshop's. */
interface Kept {
  /** Atomic batches committed, each shown as one step. */
  groups: Group[];
  /** The atomic batch under way, and the document's revision when it began. */
  open: { readonly group: Group; readonly revision: number } | undefined;
  /** The states a rolled-back batch left after the state it went back to: Photoshop keeps them until the next change. */
  abandoned: Group | undefined;
}

/**
 * Where a group is in Photoshop's history now: the index of the state before it, or undefined when the history no
 * longer holds it (a person went back into it and changed something, or deleted states). Photoshop drops its oldest
 * states past its "History States" preference, so the group may have moved towards the start by as many states;
 * the fewest dropped states that make every name before it and in it match is taken.
 */
function locate(states: States, group: Group): number | undefined {
  const start = group.prefix.length - 1;
  for (let dropped = 0; dropped <= start; dropped++) {
    const at = start - dropped;
    if (at + group.names.length >= states.names.length) continue;
    if (!group.names.every((name, i) => states.names[at + 1 + i] === name)) continue;
    let same = true;
    for (let i = 0; i <= at && same; i++) same = states.names[i] === group.prefix[i + dropped];
    if (same) return at;
  }
  return undefined;
}

/** A group as it is now in `states`, starting after the state `at`. */
function regroup(states: States, at: number, group: Group): Group {
  return { prefix: states.names.slice(0, at + 1), names: group.names, name: group.name };
}

/** The bridge's steps over Photoshop's states: `ends[i]`, the state step `i` leaves (`ends[0]`: the oldest state). */
interface View {
  readonly steps: HostHistoryStep[];
  readonly ends: number[];
  readonly current: number;
}

/**
 * Photoshop's own history as the document's (`jsx/history.jsx`): every edit of the bridge is one state named after
 * its method (`suspendHistory`), and undo, redo and go set the document's `activeHistoryState`. Photoshop's "History
 * States" preference bounds it, and a person's actions at Photoshop are steps too. Photoshop's states do not say who
 * made them, so steps have no client.
 *
 * Photoshop cannot make several states one, so an atomic batch is grouped by the bridge: `begin` notes the active
 * state, each entry makes its own state as any edit does, and `commit` notes that the states since are one step
 * (named `batch`), which `history:list` shows as one and undo, redo and go move over whole. The group is kept in
 * memory and found again by the names of the states each time the history is read; it is forgotten (its states then
 * listed one by one) when Photoshop's history no longer holds it, and when the bridge restarts. `rollback` sets the
 * active state back to the one `begin` noted; the states the entries made stay in Photoshop's History panel, where a
 * person sees them, until the next change discards them, and the bridge lists none of them.
 */
export function historyOps({ run, revisions }: HistoryDeps): Required<Pick<HostAdapter, "history">> & { readonly changes$: Subject<HistoryChangedEventData> } {
  const changes$ = new Subject<HistoryChangedEventData>();
  const kept = new Map<number, Kept>();
  revisions.forgotten$.subscribe((documentId) => kept.delete(documentId));

  const keptOf = (documentId: number): Kept => {
    let k = kept.get(documentId);
    if (k === undefined) {
      k = { groups: [], open: undefined, abandoned: undefined };
      kept.set(documentId, k);
    }
    return k;
  };

  /** The steps over `states`: each group found again is one step, a rolled-back batch's states are left out. */
  const view = (documentId: number, states: States): View => {
    const k = kept.get(documentId);
    const placed = new Map<number, Group>();
    let last = states.names.length - 1;
    if (k !== undefined) {
      const groups: Group[] = [];
      let end = -1;
      for (const group of k.groups) {
        const at = locate(states, group);
        // Gone, overlapping one before it, or with the active state inside it (a person chose one of its states).
        if (at === undefined || at < end || (states.current > at && states.current < at + group.names.length)) continue;
        end = at + group.names.length;
        placed.set(at + 1, group);
        groups.push(regroup(states, at, group));
      }
      k.groups = groups;
      const abandoned = k.abandoned === undefined ? undefined : locate(states, k.abandoned);
      if (abandoned !== undefined && states.current <= abandoned) {
        k.abandoned = regroup(states, abandoned, k.abandoned!);
        last = abandoned;
      } else k.abandoned = undefined;
      if (k.groups.length === 0 && k.abandoned === undefined && k.open === undefined) kept.delete(documentId);
    }
    const steps: HostHistoryStep[] = [];
    const ends = [0];
    for (let state = 1; state <= last; ) {
      const group = placed.get(state);
      if (group !== undefined && state + group.names.length - 1 <= last) {
        steps.push({ name: group.name, method: group.name, by: "editor" });
        state += group.names.length;
      } else {
        const name = states.names[state]!;
        steps.push({ name, method: METHOD_NAME.test(name) ? name : "photoshop", by: "editor" });
        state += 1;
      }
      ends.push(state - 1);
    }
    let current = ends.length - 1;
    while (current > 0 && ends[current]! > states.current) current--;
    return { steps, ends, current };
  };

  const answer = (documentId: number, v: View, revision: number, rolledBack?: number): HistoryAnswer => ({
    documentId,
    steps: v.steps,
    current: v.current,
    dropped: 0,
    revision,
    ...(rolledBack === undefined ? {} : { rolledBack }),
  });

  const announce = (documentId: number, v: View): void => changes$.next({ documentId, current: v.current, length: v.steps.length });

  return {
    changes$,
    async history(ctx, request) {
      const { documentId } = request;
      const read = (index?: number) => run<States>(ctx.signal, "history", index === undefined ? { documentId, op: "list" } : { documentId, op: "go", index });
      const batch = kept.get(documentId)?.open;
      switch (request.op) {
        case "list":
          return answer(documentId, view(documentId, await read()), revisions.of(documentId));

        case "begin": {
          if (batch !== undefined) throw new BridgeError("BAD_REQUEST", `Document ${documentId} is already in an atomic batch`, { details: { documentId } });
          const states = await read();
          const v = view(documentId, states);
          const group = { prefix: states.names.slice(0, states.current + 1), names: [], name: "batch" };
          keptOf(documentId).open = { group, revision: revisions.of(documentId) };
          return answer(documentId, v, revisions.of(documentId));
        }

        case "commit": {
          if (batch === undefined) throw new BridgeError("BAD_REQUEST", `Document ${documentId} is not in an atomic batch`, { details: { documentId } });
          const k = keptOf(documentId);
          k.open = undefined;
          const states = await read();
          const at = locate(states, batch.group);
          // The states from the one after `begin`'s to the active one are the batch's (a change after `begin`
          // discarded the states that could be redone then, and the groups among them).
          if (at !== undefined && states.current > at) {
            k.groups = k.groups.filter((group) => {
              const where = locate(states, group);
              return where !== undefined && where + group.names.length <= at;
            });
            k.groups.push({ prefix: states.names.slice(0, at + 1), names: states.names.slice(at + 1, states.current + 1), name: request.name });
          }
          const v = view(documentId, states);
          announce(documentId, v);
          return answer(documentId, v, revisions.of(documentId));
        }

        case "rollback": {
          if (batch === undefined) throw new BridgeError("BAD_REQUEST", `Document ${documentId} is not in an atomic batch`, { details: { documentId } });
          const k = keptOf(documentId);
          k.open = undefined;
          let made = 0;
          const states = await revisions.restore(documentId, batch.revision, async () => {
            const found = await read();
            const at = locate(found, batch.group);
            if (at === undefined) {
              throw new BridgeError("CONFLICT", `Photoshop no longer holds the state document ${documentId} was in before the atomic batch: what its entries did stays`, {
                details: { documentId },
              });
            }
            made = Math.max(0, found.current - at);
            if (made === 0) return found;
            k.abandoned = { prefix: found.names.slice(0, at + 1), names: found.names.slice(at + 1), name: "batch" };
            return read(at);
          });
          const v = view(documentId, states);
          if (made > 0) revisions.edited$.next({ documentId, revision: batch.revision, method: "batch" });
          announce(documentId, v);
          return answer(documentId, v, batch.revision, made);
        }

        default: {
          if (batch !== undefined) throw new BridgeError("BAD_REQUEST", `Document ${documentId} is in an atomic batch`, { details: { documentId } });
          const { op } = request;
          const steps = request.op === "go" ? undefined : request.steps;
          const targetFrom = (current: number): number =>
            request.op === "go" ? request.index : request.op === "undo" ? current - request.steps : current + request.steps;
          const { result: v, revision } = await revisions.change(documentId, async () => {
            const before = view(documentId, await read());
            const length = before.steps.length;
            const target = targetFrom(before.current);
            if (target < 0 || target > length) {
              const details = { documentId, current: before.current, length, dropped: 0, ...(steps === undefined ? { index: target } : { steps }) };
              const message =
                op === "undo"
                  ? `Only ${before.current} steps of document ${documentId} can be undone, not ${steps}`
                  : op === "redo"
                    ? `Only ${length - before.current} steps of document ${documentId} can be redone, not ${steps}`
                    : `Document ${documentId} has steps 0 to ${length}, not ${target}`;
              throw new BridgeError("BAD_REQUEST", message, { details });
            }
            return view(documentId, await read(before.ends[target]));
          });
          revisions.edited$.next({ documentId, revision, method: `history:${op}` });
          announce(documentId, v);
          return answer(documentId, v, revision);
        }
      }
    },
  };
}
