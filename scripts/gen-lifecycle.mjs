// Build step: draws the plugin lifecycle in docs/plugins.md from the built XState machine (dist), so the picture
// cannot drift from the code: a Mermaid state diagram of every state and transition, and a table of what each
// transition guarantees. The guarantees are prose, written below per transition; a transition without one gets a
// placeholder row and a warning here, and test/plugins/lifecycle-doc.test.ts fails until it is described.
// Run directly (`node scripts/gen-lifecycle.mjs`, part of `npm run build`) it rewrites the block between
// <!-- lifecycle:start --> and <!-- lifecycle:end -->; imported, it only exports the functions (the test passes
// the machine from the TypeScript sources).
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const START = "<!-- lifecycle:start -->";
export const END = "<!-- lifecycle:end -->";
/** Shown in a row whose transition has no guarantee written below yet. */
export const UNDESCRIBED = "(not described yet)";

const SETUP = "`limits.pluginSetupTimeoutMs` (10 s)";
const HOOK = "`limits.pluginHookTimeoutMs` (5 s) per hook";
const REFUSED = "`/ws/{id}` answers an `error` event with `lastError` and closes with 4004; routes answer the same error";

/**
 * What each transition guarantees, keyed `<source state> | <event label>` (labels as {@link eventLabel} makes them):
 * what runs, under which deadline, and what clients see.
 */
const GUARANTEES = {
  "loading | load done": {
    runs: "The manifest was read and checked (`bridge` range, `requires` loaded), the module imported, the definition checked and the id claimed",
    deadline: "–",
    clients: "Nothing yet: plugins load before the bridge listens",
  },
  "loading | load error": {
    runs: "Nothing of the plugin stays; `lastError` is `PLUGIN_LOAD_FAILED` with `details.phase` (`manifest`, `requires`, `import`, `definition`, `duplicate`)",
    deadline: "–",
    clients: `Health \`failed\`, \`load: failed\`; listed under \`failed\` in \`GET /plugins\`; ${REFUSED}`,
  },
  "loading | STOP": { runs: "Loading is abandoned; no hook runs", deadline: "–", clients: "Nothing: the bridge is shutting down" },
  "registering | register done": {
    runs: "What `setup` registered (methods, routes, listeners, hooks) is committed at once",
    deadline: SETUP,
    clients: "`/ws/{id}`, its methods, routes and events are live; the plugin is in `GET /plugins`, `getServerInfo` and `#ready`",
  },
  "registering | register error": {
    runs: "Nothing `setup` registered stays; `lastError` is `PLUGIN_REGISTRATION_FAILED` (`phase: setup`)",
    deadline: SETUP,
    clients: `Health \`failed\`, \`registration: failed\`; ${REFUSED}`,
  },
  "registering | after setupDeadline": {
    runs: "`setup` ran past its deadline: registering closes (later `ctx` calls throw) and nothing it registered stays",
    deadline: SETUP,
    clients: `Health \`failed\`, \`registration: failed\`; ${REFUSED}`,
  },
  "registering | STOP": { runs: "Registration is abandoned; nothing it registered stays", deadline: "–", clients: "Nothing: the bridge is shutting down" },
  "loaded | STOP": {
    runs: "Shutdown begins for this plugin (plugins stop in reverse load order, one at a time)",
    deadline: "–",
    clients: "Running calls are aborted (`signal`); new calls answer `SHUTTING_DOWN`",
  },
  "loaded | CRASHED": {
    runs: "An isolated plugin's worker or process died, passed its memory cap or missed a ping; the crash (reason, time) is recorded",
    deadline: "a ping answered within `limits.pluginPingTimeoutMs` (2 s), every `limits.pluginPingIntervalMs` (5 s)",
    clients: "Calls in flight answer `PLUGIN_UNAVAILABLE` (503, retryable); other plugins and the bridge carry on",
  },
  "loaded | RELOAD_FAILED": {
    runs: "New code failed to load or set up; the running instance keeps serving",
    deadline: SETUP,
    clients: "No change; the health's `lastError` says why the reload was refused",
  },
  "loaded.healthy | HOOK_FAILED": {
    runs: "A hook or `ctx.bridge.on` listener threw or timed out; the failure is contained and recorded",
    deadline: HOOK,
    clients: "Still available; health `runtime: failed` with `PLUGIN_LIFECYCLE_FAILED`; a failed `onConnect` refuses only that connection (1011)",
  },
  "loaded.degraded | HOOK_FAILED": {
    runs: "A later hook failure replaces `lastError`; the plugin stays degraded",
    deadline: HOOK,
    clients: "Still available; health shows the latest failure",
  },
  "crashed | [restartsExhausted]": {
    runs: "More crashes than `limits.pluginRestartAttempts` (5) within `limits.pluginRestartWindowMs` (60 s): no more restarts",
    deadline: "–",
    clients: "The endpoint's clients get `plugin:failed`; health `failed` with `PLUGIN_UNAVAILABLE` and the last crash",
  },
  "crashed | after restartBackoff": {
    runs: "The backoff passed; a fresh worker or process is started",
    deadline: "`limits.pluginRestartBackoffMs` (100 ms), doubling with each crash in the window",
    clients: "Calls meanwhile answer `PLUGIN_UNAVAILABLE` (503, retryable); the endpoint stays open",
  },
  "crashed | STOP": { runs: "No restart; the plugin is disposed", deadline: "–", clients: "Nothing: the bridge is shutting down" },
  "restarting | restart done": {
    runs: "`setup` ran again in the new worker and its registrations are live; `restarts` counts it; `onConnect` runs again (`again: \"restart\"`) for each connected client",
    deadline: `${SETUP}; ${HOOK}`,
    clients: "The endpoint's clients get `plugin:restarted`; their next call reaches the new instance (they stay connected)",
  },
  "restarting | restart error": {
    runs: "The restart itself failed; it counts as another crash",
    deadline: SETUP,
    clients: "Calls answer `PLUGIN_UNAVAILABLE` (503, retryable)",
  },
  "restarting | STOP": { runs: "The restart is abandoned; the plugin is disposed", deadline: "–", clients: "Nothing: the bridge is shutting down" },
  "failed | STOP": { runs: "Nothing of the plugin runs any more; no hook runs", deadline: "–", clients: "Nothing: the bridge is shutting down" },
  "failed | RELOAD_FAILED": {
    runs: "New code failed too; the plugin stays failed",
    deadline: SETUP,
    clients: "Health `lastError` says why the reload was refused",
  },
  "stopping | dispose done": {
    runs: "Pending `onDisconnect` hooks finished, running calls were aborted, `onDispose` ran, listeners and event streams closed",
    deadline: HOOK,
    clients: "The endpoint's event streams complete; sockets close with 1001",
  },
  "stopping | dispose error": {
    runs: "Disposal failed; the failure is logged and shutdown goes on",
    deadline: HOOK,
    clients: "As above: the bridge's shutdown is not held up",
  },
  "stopping | HOOK_FAILED": {
    runs: "A hook failed while stopping: logged only (nobody can read the health any more)",
    deadline: HOOK,
    clients: "Nothing",
  },
};

/**
 * The readable label of a transition's event: `load done` (named by the invoked actor's `src`, as its id may be
 * generated), `after setupDeadline`, `[guard]` for an eventless one.
 */
export function eventLabel(eventType, guard, actorNames = new Map()) {
  const guardText = guard === undefined ? "" : `[${guard}]`;
  if (eventType === "") return guardText;
  let label = eventType;
  const actor = /^xstate\.(done|error)\.actor\.(.+)$/.exec(eventType);
  if (actor !== null) label = `${actorNames.get(actor[2]) ?? actor[2]} ${actor[1]}`;
  const after = /^xstate\.after\.([^.]+)\./.exec(eventType);
  if (after !== null) label = /^\d+$/.test(after[1]) ? `after ${after[1]} ms` : `after ${after[1]}`;
  return guardText === "" ? label : `${label} ${guardText}`;
}

/** A state node's path below the root, e.g. `loaded.healthy`. */
const pathOf = (node) => node.path.join(".");
const guardOf = (transition) => {
  const guard = transition.guard;
  if (guard === undefined) return undefined;
  return typeof guard === "string" ? guard : (guard.type ?? "guard");
};

/**
 * Every transition of the machine, in the order of its states: `{ from, event, to }` with state paths (`to` is
 * undefined for a transition that stays in its state, e.g. one that only records something).
 */
export function lifecycleTransitions(machine) {
  const out = [];
  const visit = (node) => {
    if (node.path.length > 0) {
      const from = pathOf(node);
      const actorNames = new Map(node.invoke.map((invoke) => [invoke.id, typeof invoke.src === "string" ? invoke.src : invoke.id]));
      const add = (eventType, transition) => {
        const targets = transition.target ?? [];
        const event = eventLabel(eventType, guardOf(transition), actorNames);
        if (targets.length === 0) out.push({ from, event, to: undefined });
        for (const target of targets) out.push({ from, event, to: pathOf(target) });
      };
      for (const transition of node.always ?? []) add("", transition);
      for (const [eventType, transitions] of node.transitions) for (const transition of transitions) add(eventType, transition);
    }
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(machine.root);
  return out;
}

const mermaidId = (path) => path.replaceAll(".", "_");

/**
 * The machine as a Mermaid `stateDiagram-v2`: composite states for nested ones, `[*]` for initial and final.
 * Transitions between children of one composite are drawn inside it (Mermaid's rule); those that stay in their
 * state (they only record something) are left to the table.
 */
export function lifecycleMermaid(machine) {
  const lines = ["stateDiagram-v2"];
  const moves = lifecycleTransitions(machine).filter((t) => t.to !== undefined);
  const parentOf = (path) => path.split(".").slice(0, -1).join(".");
  const inside = (t) => t.from.includes(".") && parentOf(t.from) === parentOf(t.to);
  const edge = (pad, { from, event, to }) => `${pad}${mermaidId(from)} --> ${mermaidId(to)}${event === "" ? "" : `: ${event}`}`;
  const declare = (node, indent) => {
    const pad = " ".repeat(indent);
    const id = mermaidId(pathOf(node));
    const children = Object.values(node.states);
    if (children.length === 0) {
      if (node.path.length > 1) lines.push(`${pad}state "${node.key}" as ${id}`);
      return;
    }
    lines.push(node.path.length > 1 ? `${pad}state "${node.key}" as ${id} {` : `${pad}state ${id} {`);
    // The inner start only matters when some transition enters the composite itself, not one of its children.
    const initial = node.initial?.target?.[0];
    if (initial !== undefined && moves.some((t) => t.to === pathOf(node))) lines.push(`${pad}  [*] --> ${mermaidId(pathOf(initial))}`);
    for (const child of children) declare(child, indent + 2);
    for (const t of moves) if (inside(t) && parentOf(t.from) === pathOf(node)) lines.push(edge(`${pad}  `, t));
    lines.push(`${pad}}`);
  };
  const root = machine.root;
  const initial = root.initial?.target?.[0];
  if (initial !== undefined) lines.push(`  [*] --> ${mermaidId(pathOf(initial))}`);
  for (const child of Object.values(root.states)) declare(child, 2);
  for (const t of moves) if (!inside(t)) lines.push(edge("  ", t));
  for (const node of Object.values(root.states)) if (node.type === "final") lines.push(`  ${mermaidId(pathOf(node))} --> [*]`);
  return lines.join("\n");
}

/** Transitions with no written guarantee: `<from> | <event>` keys. */
export function undescribed(machine) {
  return lifecycleTransitions(machine)
    .map(({ from, event }) => `${from} | ${event}`)
    .filter((key) => !(key in GUARANTEES));
}

const cell = (text) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

/** The generated block: diagram and guarantees table, markers included. */
export function lifecycleBlock(machine) {
  const rows = lifecycleTransitions(machine).map(({ from, event, to }) => {
    const g = GUARANTEES[`${from} | ${event}`] ?? { runs: UNDESCRIBED, deadline: UNDESCRIBED, clients: UNDESCRIBED };
    return `| \`${from}\` | ${event === "" ? "–" : `\`${cell(event)}\``} | ${to === undefined ? "(stays)" : `\`${to}\``} | ${cell(g.runs)} | ${cell(g.deadline)} | ${cell(g.clients)} |`;
  });
  return [
    START,
    "<!-- Generated from src/plugins/plugin.machine.ts by scripts/gen-lifecycle.mjs (npm run build): edit those, not this block. -->",
    "",
    "```mermaid",
    lifecycleMermaid(machine),
    "```",
    "",
    "| from | on | to | what runs | deadline | what clients see |",
    "|---|---|---|---|---|---|",
    ...rows,
    END,
  ].join("\n");
}

/** `text` with its lifecycle block replaced by the one generated from `machine`. */
export function withLifecycleBlock(text, machine) {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start === -1 || end === -1 || end < start) throw new Error(`docs/plugins.md has no ${START} … ${END} block`);
  return text.slice(0, start) + lifecycleBlock(machine) + text.slice(end + END.length);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const { pluginMachine } = await import("../dist/plugins/plugin.machine.js");
  const file = join(root, "docs", "plugins.md");
  writeFileSync(file, withLifecycleBlock(readFileSync(file, "utf8"), pluginMachine));
  const missing = undescribed(pluginMachine);
  if (missing.length > 0) console.warn(`gen-lifecycle: no guarantee written for ${missing.join(", ")} (scripts/gen-lifecycle.mjs)`);
}
