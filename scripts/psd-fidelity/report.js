// The fidelity table: the issue's four rows (files that open, composites that match, layer trees that are exact,
// round trips that lose nothing), then one row per file. Shared by the report script and the suite's artifact.
import { COMPOSITE_STATUSES, isBetter, isWorse, OPEN_OUTCOMES, ROUND_TRIP_STATUSES } from "./compare.js";

/** How each measured outcome compares with what the manifest recorded for the file. */
export function ratchet(expected, result) {
  const worse = [];
  const better = [];
  const check = (what, scale, recorded, now) => {
    if (recorded === undefined) return;
    if (isWorse(scale, recorded, now)) worse.push(`${what}: ${now} (recorded ${recorded})`);
    else if (isBetter(scale, recorded, now) || (recorded === "n/a" && now !== "n/a")) better.push(`${what}: ${now} (recorded ${recorded})`);
  };
  check("open", OPEN_OUTCOMES, expected?.open, result.open);
  if (result.open === "opens") {
    check("composite", COMPOSITE_STATUSES, expected?.composite, result.composite.status);
    check("round trip", ROUND_TRIP_STATUSES, expected?.roundTrip, result.roundTrip.status);
  }
  return { worse, better };
}

/** The outcomes of a result, as the manifest records them. */
export function outcomesOf(result) {
  return { open: result.open, composite: result.composite.status, roundTrip: result.roundTrip.status };
}

const count = (items, key) => {
  const counts = new Map();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || String(a[0]).localeCompare(String(b[0])));
};
const list = (counts) => counts.map(([name, n]) => `${name} ${n}`).join(", ");

/** The summary figures of a run: `rows` are `{ entry, result }` (manifest entry, measurement). */
export function summarise(rows) {
  const opened = rows.filter((r) => r.result.open === "opens");
  const refused = rows.filter((r) => r.result.open === "refused");
  const statuses = Object.fromEntries([...COMPOSITE_STATUSES, "n/a"].map((s) => [s, opened.filter((r) => r.result.composite.status === s).length]));
  const trees = opened.filter((r) => r.result.tree && !r.result.tree.error);
  const trips = Object.fromEntries(ROUND_TRIP_STATUSES.map((s) => [s, opened.filter((r) => r.result.roundTrip.status === s).length]));
  return {
    files: rows.length,
    opened: opened.length,
    refused: refused.length,
    refusedUnnamed: refused.filter((r) => !r.result.refusal.named).map((r) => r.entry.path),
    refusedBy: count(refused, (r) => `${r.entry.depth}-bit ${r.entry.colourMode}`),
    composite: statuses,
    tree: {
      compared: trees.length,
      structure: trees.filter((r) => r.result.tree.structure).length,
      clipped: trees.filter((r) => r.result.tree.clipped).length,
      kinds: trees.filter((r) => r.result.tree.kinds).length,
    },
    roundTrip: trips,
    wouldLose: count(opened.flatMap((r) => r.result.roundTrip.wouldLose ?? []), (kind) => kind),
  };
}

/** The issue's table for a summary, as Markdown. */
export function summaryTable(s) {
  const matching = s.composite.identical + s.composite.close;
  return [
    "| what | result |",
    "|---|---|",
    `| files that open | ${s.opened} / ${s.files}; ${s.refused} refused${s.refusedUnnamed.length ? ` (${s.refusedUnnamed.length} without a named reason)` : ", each with a named reason"}${s.refused ? `: ${list(s.refusedBy)}` : ""} |`,
    `| composite matches Photoshop's own (identical or close) | ${matching} / ${s.opened} (${s.composite.identical} identical, ${s.composite.close} close, ${s.composite.different} different, ${s.composite.wrong} wrong${s.composite["n/a"] ? `, ${s.composite["n/a"]} without a reference` : ""}) |`,
    `| layer tree exact: names, nesting, visibility, opacity, blend | ${s.tree.structure} / ${s.tree.compared}; \`clipped\` exact ${s.tree.clipped} / ${s.tree.compared}; kinds exact ${s.tree.kinds} / ${s.tree.compared} |`,
    `| save round trip lossless (same structure and pixels) | ${s.roundTrip.lossless} / ${s.opened}; ${s.roundTrip.refused} refused with their \`wouldLose\`${s.roundTrip.changed ? `, ${s.roundTrip.changed} changed` : ""}${s.roundTrip.failed ? `, ${s.roundTrip.failed} failed` : ""} |`,
    `| what the refused saves would lose (files) | ${list(s.wouldLose) || "nothing"} |`,
  ].join("\n");
}

/** One Markdown row per file. */
export function fileTable(rows) {
  const lines = ["| file | open | composite (RMSE, share off) | tree | round trip |", "|---|---|---|---|---|"];
  for (const { entry, result } of rows) {
    const c = result.composite;
    const composite = c.status === "n/a" ? "n/a" : `${c.status} (${c.rmse ?? "-"}, ${c.share === undefined ? "-" : `${(c.share * 100).toFixed(1)}%`})`;
    const t = result.tree;
    const tree = !t ? "" : t.error ? "unreadable" : [t.structure ? "" : "structure", t.clipped ? "" : "clipped", t.kinds ? "" : "kinds"].filter(Boolean).join(", ") || "exact";
    const open = result.open === "opens" ? "opens" : `refused: ${result.refusal.code}`;
    const trip = result.roundTrip.status + (result.roundTrip.wouldLose ? ` (${result.roundTrip.wouldLose.join(", ")})` : result.roundTrip.problem ? ` (${result.roundTrip.problem})` : "");
    lines.push(`| ${entry.path} | ${open} | ${composite} | ${tree} | ${trip} |`);
  }
  return lines.join("\n");
}
